import { z } from 'zod';
import { columnSchema, schemaModelSchema, tableSchema, type Column, type SchemaModel, type Table } from '../../engine/schema/model.js';
import { humanize, tableRef } from './naming.js';
import { columnFormat, type ColumnOverride, type Overrides } from './overrides.js';

export const tableDisplaySchema = z
  .strictObject({ label: z.string(), hidden: z.boolean(), displayColumn: z.string().nullable() })
  .meta({ id: 'SchemaTableDisplay' });
export const columnDisplaySchema = z
  .strictObject({ label: z.string(), hidden: z.boolean(), personal: z.boolean(), secret: z.boolean(), format: columnFormat.nullable() })
  .meta({ id: 'SchemaColumnDisplay' });

export const effectiveColumnSchema = columnSchema.extend({ display: columnDisplaySchema }).meta({ id: 'EffectiveSchemaColumn' });
export const effectiveTableSchema = tableSchema
  .extend({
    /** How routes, grants and overrides name the table. */
    ref: z.string(),
    columns: z.array(effectiveColumnSchema),
    display: tableDisplaySchema,
  })
  .meta({ id: 'EffectiveSchemaTable' });
export const effectiveModelSchema = schemaModelSchema.extend({ tables: z.array(effectiveTableSchema) }).meta({ id: 'EffectiveSchemaModel' });

export type EffectiveColumn = z.infer<typeof effectiveColumnSchema>;
export type EffectiveTable = z.infer<typeof effectiveTableSchema>;
export type EffectiveModel = z.infer<typeof effectiveModelSchema>;

const NAMING_COLUMNS = ['name', 'title', 'label', 'display_name', 'full_name', 'username', 'email', 'subject', 'slug', 'code'];
const TEXTUAL = new Set(['string', 'text', 'enum', 'uuid']);

/**
 * The column that names a row when the operator chose none: a conventional naming column,
 * else the first textual column that is no key, else the primary key. Hidden and secret
 * columns never name a row by default.
 */
export function defaultDisplayColumn(table: Table, visible: (c: Column) => boolean = () => true): string | null {
  const candidates = table.columns.filter(visible);
  const byName = new Map(candidates.map((c) => [c.name.toLowerCase(), c]));
  for (const n of NAMING_COLUMNS) {
    const c = byName.get(n);
    if (c && TEXTUAL.has(c.type)) return c.name;
  }
  const keys = new Set([...(table.primaryKey?.columns ?? []), ...table.foreignKeys.flatMap((f) => f.columns)]);
  const textual = candidates.find((c) => (c.type === 'string' || c.type === 'text') && !keys.has(c.name));
  if (textual) return textual.name;
  return table.primaryKey?.columns[0] ?? candidates[0]?.name ?? null;
}

function columnDisplay(c: Column, o: ColumnOverride | undefined): EffectiveColumn['display'] {
  return {
    label: o?.label ?? humanize(c.name),
    hidden: o?.hidden ?? false,
    personal: o?.personal ?? false,
    secret: o?.secret ?? false,
    format: o?.format ?? null,
  };
}

/** The model with every table and column carrying its resolved display metadata. */
export function applyOverrides(model: SchemaModel, overrides: Overrides): EffectiveModel {
  const byTable = new Map(overrides.tables.map((t) => [t.table, t]));
  return {
    ...model,
    tables: model.tables.map((t) => {
      const ref = tableRef(t);
      const o = byTable.get(ref);
      const byColumn = new Map((o?.columns ?? []).map((c) => [c.column, c]));
      const columns = t.columns.map((c) => ({ ...c, display: columnDisplay(c, byColumn.get(c.name)) }));
      const shown = new Set(columns.filter((c) => !c.display.hidden && !c.display.secret).map((c) => c.name));
      const chosen = o?.displayColumn !== undefined && t.columns.some((c) => c.name === o.displayColumn) ? o.displayColumn : null;
      return {
        ...t,
        ref,
        columns,
        display: {
          label: o?.label ?? humanize(t.name),
          hidden: o?.hidden ?? false,
          displayColumn: chosen ?? defaultDisplayColumn(t, (c) => shown.has(c.name)),
        },
      };
    }),
  };
}
