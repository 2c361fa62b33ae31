import { z } from 'zod';
import type { SchemaModel } from '../../engine/schema/model.js';
import { tableRef } from './naming.js';

/** Rendering hints for a column; the dashboard picks a widget, the value is never rewritten. */
export const COLUMN_FORMATS = ['email', 'url', 'phone', 'currency', 'percent', 'markdown', 'color', 'image', 'date', 'datetime', 'time', 'json'] as const;
export const columnFormat = z.enum(COLUMN_FORMATS);
export type ColumnFormat = z.infer<typeof columnFormat>;

/** Bounds of one PUT: generous for a wide schema, small enough to keep one row in the meta store. */
export const OVERRIDE_LIMITS = { tables: 5000, columnsPerTable: 2000, bodyBytes: 4 * 1024 * 1024 } as const;

const identifier = z.string().min(1).max(255);
const label = z.string().trim().min(1).max(200);

export const columnOverrideSchema = z
  .strictObject({
    column: identifier,
    label: label.optional(),
    hidden: z.boolean().optional(),
    /** Holds personal data (GDPR): exports and the public API treat it with care. */
    personal: z.boolean().optional(),
    /** Never shown in full: the data routes mask it. */
    secret: z.boolean().optional(),
    format: columnFormat.optional(),
  })
  .meta({ id: 'SchemaColumnOverride' });
export type ColumnOverride = z.infer<typeof columnOverrideSchema>;

export const tableOverrideSchema = z
  .strictObject({
    /** The table's ref: its name, or `schema.name` outside the default namespace. */
    table: identifier,
    label: label.optional(),
    hidden: z.boolean().optional(),
    /** The column that names a row in links, titles and pickers. */
    displayColumn: identifier.optional(),
    columns: z.array(columnOverrideSchema).max(OVERRIDE_LIMITS.columnsPerTable).optional(),
  })
  .meta({ id: 'SchemaTableOverride' });
export type TableOverride = z.infer<typeof tableOverrideSchema>;

export const overridesSchema = z.strictObject({ tables: z.array(tableOverrideSchema).max(OVERRIDE_LIMITS.tables) }).meta({ id: 'SchemaOverrides' });
export type Overrides = z.infer<typeof overridesSchema>;

/** The PUT body: like the stored set, but each table and each column of a table at most once. */
export const overridesInputSchema = overridesSchema.superRefine((value, ctx) => {
  const tables = new Set<string>();
  value.tables.forEach((t, i) => {
    if (tables.has(t.table)) ctx.addIssue({ code: 'custom', path: ['tables', i, 'table'], message: `The table ${t.table} is listed twice.` });
    tables.add(t.table);
    const columns = new Set<string>();
    (t.columns ?? []).forEach((c, j) => {
      if (columns.has(c.column))
        ctx.addIssue({ code: 'custom', path: ['tables', i, 'columns', j, 'column'], message: `The column ${c.column} is listed twice.` });
      columns.add(c.column);
    });
  });
});

export const schemaProblemSchema = z
  .strictObject({
    table: z.string(),
    column: z.string().optional(),
    reason: z.literal('missing'),
    /** Which override points at nothing: the table's, a column's, or the table's displayColumn. */
    override: z.enum(['table', 'column', 'displayColumn']),
  })
  .meta({ id: 'SchemaProblem' });
export type SchemaProblem = z.infer<typeof schemaProblemSchema>;

const isSet = (v: unknown) => v !== undefined;

/** Drops entries that set nothing, so a stored set and its echo are the smallest equivalent form. */
export function normalizeOverrides(o: Overrides): Overrides {
  const tables = o.tables.flatMap((t) => {
    const columns = (t.columns ?? []).filter((c) => [c.label, c.hidden, c.personal, c.secret, c.format].some(isSet));
    const entry: TableOverride = { table: t.table };
    if (t.label !== undefined) entry.label = t.label;
    if (t.hidden !== undefined) entry.hidden = t.hidden;
    if (t.displayColumn !== undefined) entry.displayColumn = t.displayColumn;
    if (columns.length) entry.columns = columns;
    return Object.keys(entry).length > 1 ? [entry] : [];
  });
  return { tables };
}

/**
 * Overrides that name what the model does not have. They are kept (the table may come back,
 * or the operator may want to move the label), and reported rather than silently dropped.
 */
export function overrideProblems(model: SchemaModel, overrides: Overrides): SchemaProblem[] {
  const tables = new Map(model.tables.map((t) => [tableRef(t), new Set(t.columns.map((c) => c.name))]));
  return overrides.tables.flatMap((t): SchemaProblem[] => {
    const columns = tables.get(t.table);
    if (!columns) return [{ table: t.table, reason: 'missing', override: 'table' }];
    const problems: SchemaProblem[] = (t.columns ?? [])
      .filter((c) => !columns.has(c.column))
      .map((c) => ({ table: t.table, column: c.column, reason: 'missing', override: 'column' }));
    if (t.displayColumn !== undefined && !columns.has(t.displayColumn))
      problems.push({ table: t.table, column: t.displayColumn, reason: 'missing', override: 'displayColumn' });
    return problems;
  });
}
