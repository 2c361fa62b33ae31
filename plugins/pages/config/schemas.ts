import { z } from 'zod';
import { gridFilterSchema } from '../grid-query.js';

/**
 * The kinds' configs, version 1 (decisions PG5): what generation writes (plugins/schema/generate.ts)
 * is version 1 as is. Strict objects, so a misspelt key is a 400, not a silently ignored setting.
 */
export const CONFIG_VERSION = 1;

const columnName = z.string().min(1).max(255);
const label = z.string().max(200).nullable();
const format = z.string().min(1).max(32).nullable();
/** A page by id, or a generated page by its key (generation names its detail page before the page exists). */
const pageRef = z.string().min(1).max(400).nullable();
/** The page's own connection and table: set by the server, so the config always says the page's. */
const own = { version: z.literal(CONFIG_VERSION).optional(), connectionId: z.string().max(64).optional(), table: z.string().max(255).optional() };

export const listConfigSchema = z
  .strictObject({
    ...own,
    columns: z
      .array(z.strictObject({ column: columnName, label: label.optional(), format: format.optional(), width: z.number().int().min(20).max(2000).optional() }))
      .max(500)
      .optional(),
    sort: z
      .array(z.strictObject({ column: columnName, direction: z.enum(['asc', 'desc']) }))
      .max(10)
      .optional(),
    filters: z.array(gridFilterSchema).max(50).optional(),
    displayColumn: columnName.nullable().optional(),
    detailPage: pageRef.optional(),
    searchable: z.boolean().optional().describe('Search (GET /search) looks for rows of this table by its display column.'),
  })
  .meta({ id: 'ListPageConfig' });

const fieldSchema = z.strictObject({
  column: columnName,
  label: label.optional(),
  format: format.optional(),
  readOnly: z.boolean().optional(),
  secret: z.boolean().optional().describe('Shown masked; the only way a secret column may be named in a config.'),
  personal: z.boolean().optional(),
});

export const recordConfigSchema = z
  .strictObject({
    ...own,
    fields: z.array(fieldSchema).max(500).optional(),
    defaults: z
      .record(columnName, z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]))
      .optional()
      .describe("A form's starting values, by column."),
    afterSave: z.enum(['stay', 'detail', 'list', 'new']).optional().describe('Where a form goes after a save.'),
    displayColumn: columnName.nullable().optional(),
    primaryKey: z.array(columnName).max(32).optional(),
    listPage: pageRef.optional(),
  })
  .meta({ id: 'RecordPageConfig' });

export const DEFAULT_RANGES = ['24h', '7d', '30d', '90d', '12m', 'all'] as const;

export const dashboardConfigSchema = z
  .strictObject({
    version: z.literal(CONFIG_VERSION).optional(),
    refreshSeconds: z.number().int().min(30).max(86_400).nullable().optional(),
    defaultRange: z.enum(DEFAULT_RANGES).nullable().optional(),
  })
  .meta({ id: 'DashboardPageConfig' });

export const customConfigSchema = z.record(z.string(), z.unknown());

export type ListConfig = z.infer<typeof listConfigSchema>;
export type RecordConfig = z.infer<typeof recordConfigSchema>;

export const CONFIG_SCHEMAS = {
  list: listConfigSchema,
  detail: recordConfigSchema,
  form: recordConfigSchema,
  dashboard: dashboardConfigSchema,
  custom: customConfigSchema,
} as const;

export const configBody = z
  .record(z.string(), z.unknown())
  .describe('The kind’s config: ListPageConfig for list pages, RecordPageConfig for detail and form pages, DashboardPageConfig for dashboards (version 1).');
