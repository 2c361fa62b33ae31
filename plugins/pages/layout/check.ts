import type { ErrorIssue, Principal } from '../../../kernel/api.js';
import { zodToIssues } from '../config/check.js';
import type { WidgetQueryCheck } from '../provides.js';
import { GRID_COLUMNS, GRID_ROWS, type Widget, widgetQueryShape } from './schemas.js';

/** Widgets off the 12-column grid (`layout-bounds`), on top of an earlier one (`layout-overlap`), or sharing an id. */
export function checkGrid(widgets: readonly Widget[]): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const ids = new Set<string>();
  const placed: Array<{ w: Widget; i: number }> = [];
  widgets.forEach((w, i) => {
    const at = `body.widgets.${i}`;
    if (ids.has(w.id)) issues.push({ path: `${at}.id`, code: 'duplicate-id', message: `Another widget has the id ${w.id}.` });
    ids.add(w.id);
    if (w.x < 0 || w.y < 0 || w.w < 1 || w.h < 1 || w.x + w.w > GRID_COLUMNS || w.y + w.h > GRID_ROWS) {
      issues.push({
        path: at,
        code: 'layout-bounds',
        message: `A widget sits inside the ${GRID_COLUMNS}-column grid: x ≥ 0, y ≥ 0, w and h ≥ 1, x + w ≤ ${GRID_COLUMNS}, y + h ≤ ${GRID_ROWS}.`,
      });
      return;
    }
    const over = placed.find(({ w: o }) => w.x < o.x + o.w && o.x < w.x + w.w && w.y < o.y + o.h && o.y < w.y + w.h);
    if (over) issues.push({ path: at, code: 'layout-overlap', message: `This widget overlaps widget ${over.w.id} (body.widgets.${over.i}).` });
    placed.push({ w, i });
  });
  return issues;
}

/** Each widget's query through the widget-data plugin's check when registered, else by shape only (decisions PG6). */
export async function checkQueries(principal: Principal, widgets: readonly Widget[], check: WidgetQueryCheck | null): Promise<ErrorIssue[]> {
  const issues: ErrorIssue[] = [];
  for (const [i, w] of widgets.entries()) {
    const path = `body.widgets.${i}.query`;
    if (check) issues.push(...(await check(principal, w.query, path)));
    else {
      const shape = widgetQueryShape.safeParse(w.query);
      if (!shape.success) issues.push(...zodToIssues(path, shape.error));
    }
  }
  return issues;
}
