import { sql } from 'kysely';
import { parseWire, rawValues, RowInputError, selectList, whereSql, type Filter } from '../../engine/rows/index.js';
import { onSource, openEndpoint, type PublicCall } from './access.js';
import { queryRefused } from './errors.js';
import { missing } from './read.js';
import type { PublicApi } from './service.js';

/**
 * `POST /public/claim`: the identity columns of an endpoint (a booking's code and e-mail) name
 * at least one row inside it → a customer session that reaches only rows holding the same
 * values. No match is the endpoint's usual 404, so a guess learns nothing more.
 */
export async function claim(api: PublicApi, call: PublicCall, ref: string, values: Record<string, unknown>): Promise<{ session: string; expiresAt: number }> {
  const opened = await openEndpoint(api, call, ref, 'GET', 'write', 1, true);
  const identity = opened.endpoint.identity;
  if (identity.length === 0) missing(opened);
  for (const name of identity) if (values[name] === undefined || values[name] === null) throw queryRefused(`values.${name}`, 'required');
  for (const name of Object.keys(values)) if (!identity.includes(name)) throw queryRefused(`values.${name}`, 'not-allowed');
  const columns = identity.map((name) => opened.table.columns.find((c) => c.name === name)!);
  const filters: Filter[] = [];
  try {
    for (const c of columns) filters.push({ column: c, op: 'eq', value: parseWire(c, values[c.name], `values.${c.name}`), path: `values.${c.name}` });
  } catch (err) {
    if (err instanceof RowInputError) missing(opened);
    throw err;
  }
  const claimed = await onSource(api, opened, async (db, d) => {
    const where = whereSql(d, [...opened.scope.defaults, ...filters], null, [])!;
    const res = await sql<Record<string, unknown>>`select ${selectList(d, columns)} from ${d.table(opened.table)} where ${where} limit 1`.execute(db);
    if (!res.rows[0]) return null;
    const raw = rawValues(res.rows[0], columns.length);
    // The stored identity is what the database holds, in wire form, so later filters match exactly.
    return Object.fromEntries(columns.map((c, i) => [c.name, d.toWire(c, raw[i])]));
  });
  if (!claimed) missing(opened);
  const { token, expiresAt } = await api.sessions.create(opened.caller.key, opened.endpoint, claimed);
  return { session: token, expiresAt };
}
