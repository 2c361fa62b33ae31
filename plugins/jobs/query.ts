import { type DeclaredJobKind, type JobView, type MetaDb, type Principal, rowToJob, toJobView } from '../../kernel/api.js';
import { permittedKinds } from './access.js';
import type { JobListQuery } from './schemas.js';

/** Newest first, keyset over the time-ordered id; only what the caller may see (access.ts). */
export async function listJobs(
  db: MetaDb,
  principal: Principal,
  declared: ReadonlyMap<string, DeclaredJobKind>,
  query: JobListQuery,
): Promise<{ jobs: JobView[]; nextCursor: string | null }> {
  let q = db.selectFrom('jobs').selectAll();
  // Admins hold every permission, including those of kinds whose plugin is gone.
  if (!principal.permissions.all) {
    const kinds = permittedKinds(principal, declared);
    const userId = principal.userId;
    if (kinds.length === 0 && userId === null) return { jobs: [], nextCursor: null };
    q = q.where((eb) => eb.or([...(userId !== null ? [eb('created_by', '=', userId)] : []), ...(kinds.length > 0 ? [eb('kind', 'in', kinds)] : [])]));
  }
  if (query.kind) q = q.where('kind', '=', query.kind);
  if (query.state) q = q.where('state', '=', query.state);
  if (query.subject) q = q.where('subject', '=', query.subject);
  if (query.cursor) q = q.where('id', '<', query.cursor);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  return { jobs: page.map((r) => toJobView(rowToJob(r))), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}
