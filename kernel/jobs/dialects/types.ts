import type { ExpressionBuilder, UpdateObject } from 'kysely';
import type { KernelTables, MetaDb } from '../../meta/types.js';
import type { JobRow } from '../rows.js';

export interface ClaimRequest {
  /** The claiming process (its instance id): lease holder. */
  owner: string;
  /** Only kinds this process can run: replicas may load different plugins. */
  kinds: string[];
  now: number;
  leaseUntil: number;
}

/** Takes the oldest due queued job for this owner, or null; one small file per dialect. */
export type Claimer = (db: MetaDb, req: ClaimRequest) => Promise<JobRow | null>;

type Eb = ExpressionBuilder<KernelTables, 'jobs'>;

/** What a claim writes: the lease, one more attempt, and a fresh progress for it. */
export function claimedValues(req: ClaimRequest): (eb: Eb) => UpdateObject<KernelTables, 'jobs'> {
  return (eb) => ({
    state: 'running',
    locked_by: req.owner,
    lease_until: req.leaseUntil,
    attempts: eb('attempts', '+', 1),
    started_at: eb.fn.coalesce('started_at', eb.val(req.now)),
    progress: null,
    progress_message: null,
    updated_at: req.now,
  });
}

/** The next due job in claim order, walking the (state, run_after, id) index. */
export function nextDue(db: MetaDb, req: ClaimRequest) {
  return db
    .selectFrom('jobs')
    .select('id')
    .where('state', '=', 'queued')
    .where('run_after', '<=', req.now)
    .where('cancel_requested', '=', 0)
    .where('kind', 'in', req.kinds)
    .orderBy('run_after')
    .orderBy('id')
    .limit(1);
}
