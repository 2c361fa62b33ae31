import { definePlugin } from '../../kernel/api.js';
import { pagesRef } from '../pages/provides.js';
import { widgetQueryIssues } from './check.js';
import type { WidgetDataOptions } from './options.js';
import { widgetDataRoutes } from './routes.js';
import { WidgetData } from './service.js';

export type { WidgetDataOptions } from './options.js';

export const WIDGET_DATA_ERRORS = {
  WIDGET_QUERY_TIMEOUT: { status: 504, message: "The widget's query did not finish in time; narrow it (a range, filters) or ask a larger unit." },
  WIDGET_QUERY_REFUSED: { status: 400, message: "The database refused the widget's query (params.reason says why)." },
};

/** The widget-data plugin (issue 28 §2), its deadlines from `options` (tests'; the server passes none). */
export function createWidgetDataPlugin(options: WidgetDataOptions = {}) {
  const live = new Set<WidgetData>();
  return definePlugin<WidgetData>({
    name: 'widget-data',
    version: '1.0.0',
    description: "Dashboard widgets' numbers, groups and time series, computed by the connected databases.",
    requires: ['connections', 'schema', 'data', 'pages'],
    errors: WIDGET_DATA_ERRORS,
    routes: widgetDataRoutes,
    setup: (kernel) => {
      const service = new WidgetData(kernel, options);
      service.listen();
      live.add(service);
      // PATCH /pages/{pageId}/layout checks each widget's query exactly as POST /widget-data/query does.
      kernel.plugin(pagesRef).setWidgetQueryCheck((principal, query, path) => widgetQueryIssues(kernel, principal, query, path));
      return service;
    },
    close: async () => {
      for (const s of live) await s.close();
      live.clear();
    },
  });
}

export default createWidgetDataPlugin();
