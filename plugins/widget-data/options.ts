/**
 * What a test may change in the widget-data plugin it starts (`createWidgetDataPlugin(options)`
 * in manifest.ts); the server's plugin is built with none, and gets the defaults (decisions WD4).
 */
export interface WidgetDataOptions {
  /** One widget's deadline: the database's statement limit and the SQLite thread's. 10 s. */
  widgetTimeoutMs?: number;
  /** A batch's deadline: widgets not done by then answer WIDGET_QUERY_TIMEOUT. 15 s. */
  batchTimeoutMs?: number;
}

export const WIDGET_TIMEOUT_MS = 10_000;
export const BATCH_TIMEOUT_MS = 15_000;
/** Widgets of one request, and of one connection across requests, running at once. */
export const PARALLEL = 4;
export const MAX_BATCH = 20;
export const MAX_POINTS = 1000;
