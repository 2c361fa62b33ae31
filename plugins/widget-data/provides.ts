import { defineServiceRef, type Principal } from '../../kernel/api.js';
import type { WidgetMeta, WidgetQuery, WidgetResult } from './schemas.js';

export type { WidgetMeta, WidgetQuery, WidgetResult } from './schemas.js';

/** One widget's answer in a batch: its result, or the refusal the route would have answered. */
export type WidgetBatchItem =
  | { id: string; ok: true; result: WidgetResult; meta: WidgetMeta }
  | {
      id: string;
      ok: false;
      error: { code: string; message: string; params?: Record<string, unknown>; issues?: Array<{ path: string; code: string; message: string }> };
    };

/**
 * What the widget-data plugin provides (`kernel.plugin(widgetDataProvidesRef)` from a plugin that
 * requires 'widget-data'): widgets computed for a principal with the routes' own code.
 */
export interface WidgetDataProvides {
  /**
   * `POST /widget-data/batch` for `principal` (its grants as they are now): each query checked
   * and run as the route does, at most 4 at once (per call and per connection) under the batch's
   * deadline; one failure never fails the others (`ok: false` with the route's error body).
   * At most 20 queries a call (MAX_BATCH), as the route takes. `fresh`: no result kept from
   * moments ago (WD6), as the route's `fresh`.
   */
  batch(principal: Principal, queries: Array<{ id: string; query: WidgetQuery | unknown }>, opts?: { fresh?: boolean }): Promise<WidgetBatchItem[]>;
}

/** At most this many queries in one `batch` call. */
export { MAX_BATCH as WIDGET_BATCH_MAX } from './options.js';

/** `kernel.plugin(widgetDataProvidesRef)` from a plugin that requires 'widget-data'. */
export const widgetDataProvidesRef = defineServiceRef<WidgetDataProvides>('widget-data');
