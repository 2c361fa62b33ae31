import { z } from 'zod';

/** The dashboard grid (decisions PG6): 12 columns, rows down to GRID_ROWS. */
export const GRID_COLUMNS = 12;
export const GRID_ROWS = 1000;
export const WIDGETS_MAX = 50;

export const VIZ_TYPES = ['number', 'bar', 'line', 'pie', 'table', 'text'] as const;

/**
 * A widget's query as the widget-data plugin reads it (issue 28 §2). The pages plugin checks this
 * shape only while no WidgetQueryCheck is registered; the registered check is the whole rule.
 */
export const widgetQueryShape = z.looseObject({
  connectionId: z.string().min(1).max(64),
  table: z.string().min(1).max(255),
  metric: z.looseObject({ op: z.enum(['count', 'count_distinct', 'sum', 'avg', 'min', 'max']), column: z.string().min(1).max(255).optional() }),
  groupBy: z.looseObject({ column: z.string().min(1).max(255) }).optional(),
  timeBucket: z.looseObject({ column: z.string().min(1).max(255), unit: z.enum(['hour', 'day', 'week', 'month']) }).optional(),
  range: z.looseObject({ column: z.string().min(1).max(255) }).optional(),
  filters: z.array(z.unknown()).optional(),
  pageId: z.string().min(1).max(64).optional(),
});

const cell = z.number().int();

export const widgetSchema = z
  .strictObject({
    id: z.string().min(1).max(64),
    x: cell.describe(`Column, 0–${GRID_COLUMNS - 1}.`),
    y: cell.describe('Row, from 0.'),
    w: cell.describe(`Width in columns; x + w ≤ ${GRID_COLUMNS}.`),
    h: cell.describe('Height in rows.'),
    title: z.string().max(120),
    query: z.record(z.string(), z.unknown()).describe('A WidgetQuery, checked as POST /widget-data/query checks it.'),
    viz: z.strictObject({ type: z.enum(VIZ_TYPES), options: z.record(z.string(), z.unknown()).default({}) }),
  })
  .meta({ id: 'DashboardWidget' });

export type Widget = z.infer<typeof widgetSchema>;

export const layoutBody = z.strictObject({
  widgets: z.array(widgetSchema).max(WIDGETS_MAX),
  version: z.number().int().min(0).describe('The stored layout.version (0 before the first save); another is 409 CONFLICT `stale`.'),
});
