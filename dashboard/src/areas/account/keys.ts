import type { QueryClient } from '@tanstack/react-query';

/**
 * The account area's query keys and the rule for seeding preferences, apart from its hooks:
 * the bootstrap (dashboard/src/api/bootstrap.ts) seeds these caches, and the hooks read the bootstrap.
 */

/**
 * Query keys: the person's own under `['me']` (the live channel refreshes notifications and asks
 * who is signed in when the channel closes), their sessions under `['auth']`.
 */
export const accountKeys = {
  me: ['me'] as const,
  prefs: ['me', 'prefs'] as const,
  notificationPrefs: ['me', 'notification-prefs'] as const,
  notifications: ['me', 'notifications'] as const,
  unread: ['me', 'notifications', 'unread'] as const,
  notificationList: ['me', 'notifications', 'list'] as const,
  sessions: ['auth', 'sessions'] as const,
};

export const SAVE_PREFS = ['save-prefs'] as const;

/** When the last save of a choice settled (performance.now()). */
let prefsSettledAt = -Infinity;

/** A save of a choice settled now (useSavePrefs). */
export function prefsSettled(): void {
  prefsSettledAt = performance.now();
}

/**
 * Whether preferences read by a bootstrap asked at `askedAt` (performance.now()) may replace the
 * cached ones: not while a choice is being saved, nor when the read began before a save ended
 * (it may hold the look before the choice; the save's answer is newer).
 */
export function prefsSeedable(queryClient: QueryClient, askedAt: number): boolean {
  return queryClient.isMutating({ mutationKey: SAVE_PREFS }) === 0 && askedAt > prefsSettledAt;
}
