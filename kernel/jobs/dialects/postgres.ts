import type { Claimer } from './types.js';
import { claimedValues, nextDue } from './types.js';

/**
 * One statement: the subquery locks the first due row no other transaction holds (SKIP LOCKED),
 * so concurrent claimers each take a different job without waiting on one another.
 */
export const claimPostgres: Claimer = async (db, req) => {
  const row = await db
    .updateTable('jobs')
    .set(claimedValues(req))
    .where('id', '=', nextDue(db, req).forUpdate().skipLocked())
    .where('state', '=', 'queued')
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
};
