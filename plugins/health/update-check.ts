import type { Kernel } from '../../kernel/api.js';

export interface UpdateCheck {
  checked: boolean;
  reason: 'network-features-disabled' | 'unreachable' | 'bad-answer' | null;
  current: string;
  latest: string | null;
  updateAvailable: boolean;
}

const TIMEOUT_MS = 3000;

/** Reads `{version}` from the configured registry URL; never calls out when network features are off. */
export async function checkForUpdate(kernel: Kernel): Promise<UpdateCheck> {
  const current = kernel.version;
  const none = (reason: UpdateCheck['reason']): UpdateCheck => ({ checked: false, reason, current, latest: null, updateAvailable: false });
  if (!kernel.config.networkFeatures) return none('network-features-disabled');
  let body: unknown;
  try {
    const res = await fetch(kernel.config.updateCheckUrl, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) return none('unreachable');
    body = await res.json();
  } catch {
    return none('unreachable');
  }
  const latest = (body as { version?: unknown })?.version;
  // Loaded on first use: the check runs when an admin asks, if ever.
  const { default: semver } = await import('semver');
  if (typeof latest !== 'string' || !semver.valid(latest)) return none('bad-answer');
  return { checked: true, reason: null, current, latest, updateAvailable: semver.gt(latest, current) };
}
