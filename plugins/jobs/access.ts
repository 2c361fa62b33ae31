import type { DeclaredJobKind, Job, Principal } from '../../kernel/api.js';

/** The kinds whose permission the caller holds: it sees (and may cancel) every job of those. */
export function permittedKinds(principal: Principal, declared: ReadonlyMap<string, DeclaredJobKind>): string[] {
  return [...declared].filter(([, k]) => principal.permissions.has(k.permission)).map(([kind]) => kind);
}

/** Its creator, or a holder of its kind's permission. A job of a kind no plugin declares any more: its creator only. */
export function canSee(principal: Principal, job: Job, declared: ReadonlyMap<string, DeclaredJobKind>): boolean {
  if (principal.userId !== null && job.createdBy === principal.userId) return true;
  const kind = declared.get(job.kind);
  return kind !== undefined && principal.permissions.has(kind.permission);
}
