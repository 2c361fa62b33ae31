import { z } from 'zod';
import { columnSchema, foreignKeySchema, indexSchema, type Column, type SchemaModel, type Table } from '../../engine/schema/model.js';
import { stableJson } from './hash.js';
import { tableRef } from './naming.js';

/** Column properties a diff compares; a rename is a removed and an added column. */
export const COLUMN_FIELDS = [
  'type',
  'nativeType',
  'nullable',
  'default',
  'autoIncrement',
  'generated',
  'maxLength',
  'precision',
  'scale',
  'enumValues',
  'comment',
] as const;

const fromTo = <T extends z.ZodType>(s: T) => z.strictObject({ from: s, to: s });
const keyed = <T extends z.ZodType>(s: T) => z.strictObject({ added: z.array(s), removed: z.array(s), changed: z.array(fromTo(s)) });

const keyColumns = z.strictObject({ name: z.string().nullable(), columns: z.array(z.string()) });
const check = z.strictObject({ name: z.string().nullable(), expression: z.string() });
const namedEnum = z.strictObject({ schema: z.string().nullable(), name: z.string(), values: z.array(z.string()) });

export const tableDiffSchema = z
  .strictObject({
    table: z.string(),
    schema: z.string().nullable(),
    name: z.string(),
    kind: fromTo(z.enum(['table', 'view'])).nullable(),
    comment: fromTo(z.string().nullable()).nullable(),
    columns: z.strictObject({
      added: z.array(columnSchema),
      removed: z.array(columnSchema),
      changed: z.array(
        z.strictObject({ name: z.string(), changes: z.array(z.strictObject({ field: z.enum(COLUMN_FIELDS), from: z.unknown(), to: z.unknown() })) }),
      ),
    }),
    /** Set when the columns both snapshots have stand in another order. */
    columnOrder: fromTo(z.array(z.string())).nullable(),
    primaryKey: fromTo(keyColumns.nullable()).nullable(),
    foreignKeys: keyed(foreignKeySchema),
    uniques: keyed(keyColumns),
    indexes: keyed(indexSchema),
    checks: keyed(check),
  })
  .meta({ id: 'SchemaTableDiff' });
export type TableDiff = z.infer<typeof tableDiffSchema>;

const tableSummary = z.strictObject({
  table: z.string(),
  schema: z.string().nullable(),
  name: z.string(),
  kind: z.enum(['table', 'view']),
  columns: z.array(z.string()),
});

export const schemaDiffSchema = z
  .strictObject({
    /** False when the two models have the same structure. */
    changed: z.boolean(),
    dialect: fromTo(z.enum(['postgres', 'mysql', 'sqlite']).nullable()).nullable(),
    tables: z.strictObject({ added: z.array(tableSummary), removed: z.array(tableSummary), changed: z.array(tableDiffSchema) }),
    enums: keyed(namedEnum),
  })
  .meta({ id: 'SchemaDiff' });
export type SchemaDiff = z.infer<typeof schemaDiffSchema>;

/** Table refs only: what an introspection answers about what it found changed. */
export const diffSummarySchema = z
  .strictObject({ changed: z.boolean(), tablesAdded: z.array(z.string()), tablesRemoved: z.array(z.string()), tablesChanged: z.array(z.string()) })
  .meta({ id: 'SchemaDiffSummary' });
export type DiffSummary = z.infer<typeof diffSummarySchema>;

const same = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);

/** Matches two lists by `key`: what only `b` has, what only `a` has, and what differs under one key. */
export function keyedDiff<T>(a: readonly T[], b: readonly T[], key: (x: T) => string) {
  const before = new Map(a.map((x) => [key(x), x]));
  const after = new Map(b.map((x) => [key(x), x]));
  return {
    added: b.filter((x) => !before.has(key(x))),
    removed: a.filter((x) => !after.has(key(x))),
    changed: [...after].flatMap(([k, to]) => {
      const from = before.get(k);
      return from !== undefined && !same(from, to) ? [{ from, to }] : [];
    }),
  };
}

const cols = (c: readonly string[]) => c.join('\u0000');
const summary = (t: Table) => ({ table: tableRef(t), schema: t.schema, name: t.name, kind: t.kind, columns: t.columns.map((c) => c.name) });

function diffColumns(a: readonly Column[], b: readonly Column[]): TableDiff['columns'] {
  const { added, removed } = keyedDiff(a, b, (c) => c.name);
  const before = new Map(a.map((c) => [c.name, c]));
  const changed = b.flatMap((to) => {
    const from = before.get(to.name);
    if (!from) return [];
    const changes = COLUMN_FIELDS.filter((f) => !same(from[f], to[f])).map((field) => ({ field, from: from[field], to: to[field] }));
    return changes.length ? [{ name: to.name, changes }] : [];
  });
  return { added, removed, changed };
}

function diffTable(a: Table, b: Table): TableDiff | null {
  const common = new Set(b.columns.map((c) => c.name));
  const orderBefore = a.columns.map((c) => c.name).filter((n) => common.has(n));
  const kept = new Set(orderBefore);
  const orderAfter = b.columns.map((c) => c.name).filter((n) => kept.has(n));
  const d: TableDiff = {
    table: tableRef(b),
    schema: b.schema,
    name: b.name,
    kind: a.kind !== b.kind ? { from: a.kind, to: b.kind } : null,
    comment: a.comment !== b.comment ? { from: a.comment, to: b.comment } : null,
    columns: diffColumns(a.columns, b.columns),
    columnOrder: same(orderBefore, orderAfter) ? null : { from: orderBefore, to: orderAfter },
    primaryKey: same(a.primaryKey, b.primaryKey) ? null : { from: a.primaryKey, to: b.primaryKey },
    // A foreign key is what it links; its name or actions changing is a change of that link.
    foreignKeys: keyedDiff(a.foreignKeys, b.foreignKeys, (f) =>
      [cols(f.columns), f.referencedSchema ?? '', f.referencedTable, cols(f.referencedColumns)].join('\u0001'),
    ),
    uniques: keyedDiff(a.uniques, b.uniques, (u) => cols(u.columns)),
    indexes: keyedDiff(a.indexes, b.indexes, (i) => i.name ?? `(${cols(i.columns)})`),
    checks: keyedDiff(a.checks, b.checks, (c) => c.name ?? c.expression),
  };
  const lists = [d.columns, d.foreignKeys, d.uniques, d.indexes, d.checks];
  const touched = d.kind || d.comment || d.columnOrder || d.primaryKey || lists.some((l) => l.added.length || l.removed.length || l.changed.length);
  return touched ? d : null;
}

/**
 * What changed from `a` to `b`, matching tables by schema and name and columns by name (so a
 * rename is reported as removed + added). Row estimates are not structure and never count.
 * `a` null means "nothing before": everything in `b` is added.
 */
export function diffModels(a: SchemaModel | null, b: SchemaModel): SchemaDiff {
  const before = a ?? { dialect: b.dialect, tables: [], enums: [] };
  const tables = keyedDiff(before.tables, b.tables, tableRef);
  const previous = new Map(before.tables.map((t) => [tableRef(t), t]));
  const changed = b.tables.flatMap((t) => {
    const prior = previous.get(tableRef(t));
    const d = prior ? diffTable(prior, t) : null;
    return d ? [d] : [];
  });
  const enums = keyedDiff(before.enums, b.enums, (e) => `${e.schema ?? ''}.${e.name}`);
  const dialect = before.dialect !== b.dialect ? { from: before.dialect, to: b.dialect } : null;
  return {
    changed:
      Boolean(dialect) || tables.added.length + tables.removed.length + changed.length + enums.added.length + enums.removed.length + enums.changed.length > 0,
    dialect,
    tables: { added: tables.added.map(summary), removed: tables.removed.map(summary), changed },
    enums,
  };
}

export function summarizeDiff(d: SchemaDiff): DiffSummary {
  return {
    changed: d.changed,
    tablesAdded: d.tables.added.map((t) => t.table),
    tablesRemoved: d.tables.removed.map((t) => t.table),
    tablesChanged: d.tables.changed.map((t) => t.table),
  };
}
