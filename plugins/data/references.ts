import { sql } from 'kysely';
import { primaryKeyColumns, rawValues, recordIdOf, selectList, toWireRow, type AnyDb, type RowDialect } from '../../engine/rows/index.js';
import type { ForeignKey } from '../../engine/schema/model.js';
import type { EffectiveTable } from '../schema/provides.js';

export const REFERENCE_SAMPLE = 5;

export interface InboundReference {
  table: string;
  foreignKey: string | null;
  columns: string[];
  referencedColumns: string[];
  onDelete: ForeignKey['onDelete'];
  count: number;
  /** The first rows by primary key (empty for a table without one). */
  recordIds: string[];
}

/** Foreign keys of any table (this one included) that point at `target`. */
export function inboundKeys(tables: readonly EffectiveTable[], target: EffectiveTable): Array<{ from: EffectiveTable; fk: ForeignKey }> {
  const out: Array<{ from: EffectiveTable; fk: ForeignKey }> = [];
  for (const from of tables) {
    for (const fk of from.foreignKeys) {
      const schemaMatches = fk.referencedSchema === null || target.schema === null || fk.referencedSchema === target.schema;
      if (fk.referencedTable === target.name && schemaMatches) out.push({ from, fk });
    }
  }
  return out;
}

/**
 * Counts and the first few ids of the rows behind each inbound key: one query per key, the
 * count riding along as a window over the same filter. `referenced` holds the raw values of
 * the target row's columns by name, as read through the same dialect (so they bind back).
 */
export async function countReferences(
  db: AnyDb,
  d: RowDialect,
  keys: ReadonlyArray<{ from: EffectiveTable; fk: ForeignKey }>,
  referenced: ReadonlyMap<string, unknown>,
): Promise<InboundReference[]> {
  return Promise.all(
    keys.map(async ({ from, fk }) => {
      const base = { table: from.ref, foreignKey: fk.name, columns: fk.columns, referencedColumns: fk.referencedColumns, onDelete: fk.onDelete };
      const values = fk.referencedColumns.map((c) => referenced.get(c) ?? null);
      if (values.some((v) => v === null)) return { ...base, count: 0, recordIds: [] };
      const where = sql.join(
        fk.columns.map((c, i) => sql`${sql.id(c)} = ${values[i]}`),
        sql` and `,
      );
      const pk = primaryKeyColumns(from);
      if (pk.length === 0) {
        const res = await sql<{ n: unknown }>`select count(*) as ${sql.id('n')} from ${d.table(from)} where ${where}`.execute(db);
        return { ...base, count: Number(res.rows[0]?.n ?? 0), recordIds: [] };
      }
      const res = await sql<
        Record<string, unknown>
      >`select ${selectList(d, pk)}, count(*) over () as ${sql.id('n')} from ${d.table(from)} where ${where} order by ${sql.join(
        pk.map((c) => sql.id(c.name)),
      )} limit ${sql.lit(REFERENCE_SAMPLE)}`.execute(db);
      return {
        ...base,
        count: Number(res.rows[0]?.n ?? 0),
        recordIds: res.rows.map((r) => recordIdOf(from, toWireRow(d, pk, rawValues(r, pk.length)))!),
      };
    }),
  );
}
