import { useQuery } from '@tanstack/react-query';
import { api, ok } from './client';
import type { ReferenceTarget } from '../values/references';

/**
 * The names of referenced rows (a foreign key's "Shown by" column), asked for in batches: every
 * key asked for in one tick of rendering (a page of grid cells, a row page's fields, an audit
 * diff) for the same referenced table goes in ONE list request with an `in` filter on the key,
 * never one request per cell. Each key's answer is kept in the query cache under `['data', …]`,
 * so the live channel's `data.changed` refreshes names too.
 */

/** The data API takes at most 500 values in one `in` filter (engine/rows/query-params.ts). */
const MAX_IN = 500;

interface Waiting {
  target: ReferenceTarget;
  keys: Map<string, Array<{ resolve: (label: string | null) => void; reject: (err: unknown) => void }>>;
}

const batches = new Map<string, Waiting>();

const targetKey = (t: ReferenceTarget) => JSON.stringify([t.conn, t.table, t.keyColumn, t.displayColumn]);

async function fetchLabels(target: ReferenceTarget, keys: readonly string[]): Promise<Map<string, string | null>> {
  const enc = encodeURIComponent;
  const query = [
    `filter[${enc(target.keyColumn)}][in]=${enc(keys.join(','))}`,
    `fields=${enc([target.keyColumn, target.displayColumn].join(','))}`,
    `limit=${keys.length}`,
  ].join('&');
  const page = await ok(
    api.GET('/data/{connectionId}/{table}', {
      params: { path: { connectionId: target.conn, table: target.table } },
      querySerializer: () => query,
    }),
  );
  const out = new Map<string, string | null>();
  for (const row of page.data.rows) {
    const label = row[target.displayColumn];
    out.set(String(row[target.keyColumn]), label === null || label === undefined ? null : String(label));
  }
  return out;
}

function flush(id: string): void {
  const batch = batches.get(id);
  batches.delete(id);
  if (!batch) return;
  const keys = [...batch.keys.keys()];
  for (let at = 0; at < keys.length; at += MAX_IN) {
    const chunk = keys.slice(at, at + MAX_IN);
    fetchLabels(batch.target, chunk).then(
      (labels) => chunk.forEach((k) => batch.keys.get(k)!.forEach((w) => w.resolve(labels.get(k) ?? null))),
      (err: unknown) => chunk.forEach((k) => batch.keys.get(k)!.forEach((w) => w.reject(err))),
    );
  }
}

/** The name of the row `key` of `target`; joins the batch of this tick. */
export function loadRowLabel(target: ReferenceTarget, key: string): Promise<string | null> {
  // A key holding a comma cannot travel in an `in` list: it is shown as it is.
  if (key.includes(',') || key === '') return Promise.resolve(null);
  const id = targetKey(target);
  let batch = batches.get(id);
  if (!batch) {
    batch = { target, keys: new Map() };
    batches.set(id, batch);
    setTimeout(() => flush(id), 0);
  }
  const waiting = batch.keys.get(key) ?? [];
  batch.keys.set(key, waiting);
  return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
}

/** The name of a referenced row, or undefined while it is asked for (null: no such row, or no name). */
export function useRowLabel(target: ReferenceTarget | null, key: string | null): string | null | undefined {
  const query = useQuery({
    queryKey: ['data', 'label', target?.conn, target?.table, target?.keyColumn, target?.displayColumn, key],
    queryFn: () => loadRowLabel(target!, key!),
    enabled: target !== null && key !== null,
    staleTime: 60_000,
    // A table the person may not read, or gone: the key is shown as it is, without asking again.
    retry: false,
  });
  return query.data;
}
