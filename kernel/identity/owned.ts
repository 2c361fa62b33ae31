import type { MetaDb } from '../meta/types.js';
import { ownerOf, type Principal } from './principal.js';

/** The columns of a table of things principals own (exports, uploads, imports): ids are time-ordered. */
export interface OwnedRow {
  id: string;
  owner_type: string;
  owner_id: string;
}

/** The row when `principal` owns it or holds `adminPermission` (who may see everyone's); else null. */
export function ownedBy<R extends OwnedRow>(principal: Principal, row: R | undefined, adminPermission: string): R | null {
  if (!row) return null;
  if (principal.permissions.has(adminPermission)) return row;
  const owner = ownerOf(principal);
  return row.owner_type === owner.type && row.owner_id === owner.id ? row : null;
}

/**
 * One page of `table`'s rows that `principal` owns, newest first, keyset on id; with `all`,
 * everyone's, for a principal holding `adminPermission` (without it, `all` is ignored).
 */
export async function ownedPage<R extends OwnedRow>(
  db: MetaDb,
  table: string,
  principal: Principal,
  adminPermission: string,
  opts: { limit: number; cursor?: string | undefined; all: boolean },
): Promise<{ rows: R[]; next: string | null }> {
  let q = db
    .withTables<Record<string, OwnedRow>>()
    .selectFrom(table)
    .selectAll()
    .orderBy('id', 'desc')
    .limit(opts.limit + 1);
  if (!(opts.all && principal.permissions.has(adminPermission))) {
    const owner = ownerOf(principal);
    q = q.where('owner_type', '=', owner.type).where('owner_id', '=', owner.id);
  }
  if (opts.cursor) q = q.where('id', '<', opts.cursor);
  const rows = (await q.execute()) as R[];
  const more = rows.length > opts.limit;
  if (more) rows.pop();
  return { rows, next: more ? rows[rows.length - 1]!.id : null };
}
