import type { Claimer } from './types.js';
import { claimedValues, nextDue } from './types.js';

/**
 * MySQL 8 / MariaDB 10.6+: lock the first due row no one else holds (SKIP LOCKED) in a
 * transaction, then update it. Neither has UPDATE … RETURNING, and MySQL refuses a subquery on
 * the table being updated, hence the two steps. READ COMMITTED: the locking read then takes no
 * gap locks, which would hold up concurrent enqueues until the claim commits.
 */
export const claimMysql: Claimer = (db, req) =>
  db
    .transaction()
    .setIsolationLevel('read committed')
    .execute(async (trx) => {
      const pick = await nextDue(trx, req).forUpdate().skipLocked().executeTakeFirst();
      if (!pick) return null;
      await trx.updateTable('jobs').set(claimedValues(req)).where('id', '=', pick.id).where('state', '=', 'queued').execute();
      return (await trx.selectFrom('jobs').selectAll().where('id', '=', pick.id).executeTakeFirst()) ?? null;
    });
