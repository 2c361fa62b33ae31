/**
 * The tables and pages this person opened lately in this browser, newest first, for the home
 * screen. Kept in localStorage (no server route: a visit is not worth a write), per account.
 */
export interface RecentVisit {
  kind: 'table' | 'page';
  /** The address to open it again. */
  path: string;
  /** A table: its connection id and table name; a page: its slug. */
  connectionId?: string;
  table?: string;
  slug?: string;
}

const LIMIT = 6;
const key = (userId: string) => `svc-admin.recent.${userId}`;

/** What a signed-in address is, when it is a table's grid or a page (`/p/:slug`); their sub-screens count as the same. */
export function visitOf(path: string): RecentVisit | undefined {
  const table = /^\/connections\/([^/]+)\/tables\/([^/]+)/.exec(path);
  if (table) {
    const [whole, connectionId, name] = table as unknown as [string, string, string];
    return { kind: 'table', path: whole, connectionId: decodeURIComponent(connectionId), table: decodeURIComponent(name) };
  }
  const page = /^\/p\/([^/]+)/.exec(path);
  if (page) return { kind: 'page', path: page[0], slug: decodeURIComponent(page[1]!) };
  return undefined;
}

export function readRecent(userId: string): RecentVisit[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(key(userId)) ?? '[]');
    return Array.isArray(stored) ? (stored as RecentVisit[]).filter((v) => v && typeof v.path === 'string') : [];
  } catch {
    return []; // storage off or a foreign value: nothing remembered
  }
}

/** Remembers the address when it is a table or a page (moved to the front, the oldest dropped past the limit). */
export function rememberVisit(userId: string, path: string): void {
  const visit = visitOf(path);
  if (!visit) return;
  const list = [visit, ...readRecent(userId).filter((v) => v.path !== visit.path)].slice(0, LIMIT * 2);
  try {
    localStorage.setItem(key(userId), JSON.stringify(list));
  } catch {
    // A full or refused storage only loses the list.
  }
}

export const RECENT_LIMIT = LIMIT;
