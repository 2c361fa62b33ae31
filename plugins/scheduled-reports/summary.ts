import type { Kernel, MailAttachment, Principal } from '../../kernel/api.js';
import type { Page } from '../pages/provides.js';
import { WIDGET_BATCH_MAX, widgetDataProvidesRef, type WidgetBatchItem, type WidgetResult } from '../widget-data/provides.js';

/** What a dashboard's `summary` mails: a text part, an HTML part, and files. */
export interface DashboardSummary {
  text: string;
  html: string;
  attachments: MailAttachment[];
  /** Widgets that answered, and those that failed (their error is in their row). */
  widgets: { ok: number; failed: number };
}

interface Widget {
  id?: string;
  title?: string;
  query?: unknown;
}

/** A series mails its last points in the table (every point is in its CSV). */
export const SERIES_POINTS_IN_MAIL = 5;

type Cell = string | number | boolean | null;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const show = (v: Cell): string => (v === null ? '—' : typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 6 }) : String(v));
const iso = (t: number) => new Date(t).toISOString();

/** One CSV field: quoted when it must be, and a text a spreadsheet would read as a formula made plain (as exports do). */
function csvField(v: Cell): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const csv = (rows: Cell[][]) => rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';

/** The rows of a widget's result: the mail's table (`shown`) and the CSV's (`all`), header first. */
function rowsOf(result: WidgetResult): { header: string[]; shown: Cell[][]; all: Cell[][] } {
  switch (result.kind) {
    case 'value':
      return { header: ['value'], shown: [[result.value]], all: [[result.value]] };
    case 'groups': {
      const rows: Cell[][] = result.groups.map((g) => [g.key, g.value]);
      if (result.other !== undefined) rows.push(['(other)', result.other]);
      return { header: ['key', 'value'], shown: rows, all: rows };
    }
    case 'series': {
      const rows: Cell[][] = result.points.map((p) => [iso(p.t), p.value]);
      return { header: ['t', 'value'], shown: rows.slice(-SERIES_POINTS_IN_MAIL), all: rows };
    }
  }
}

function fileName(index: number, title: string, used: Set<string>): string {
  const base = `${String(index + 1).padStart(2, '0')}-${
    title
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, '-')
      .slice(0, 60) || 'widget'
  }`;
  let name = `${base}.csv`;
  for (let n = 2; used.has(name); n++) name = `${base}-${n}.csv`;
  used.add(name);
  return name;
}

/**
 * A dashboard's `summary` (RP3, RP7): every widget of the page's shared layout computed by the
 * widget-data plugin for `owner` (their grants as they are now, the batch's rules: 4 at once,
 * its deadline), rendered as one HTML table per widget (a value; the top groups and `other`; a
 * series' last points) with one CSV per widget that answered. A widget that fails shows its
 * error in its place; the mail still goes.
 */
export async function summarizeDashboard(kernel: Kernel, owner: Principal, page: Page): Promise<DashboardSummary> {
  const layout = page.layout as { widgets?: unknown } | null;
  const widgets = (Array.isArray(layout?.widgets) ? layout.widgets : []) as Widget[];
  const titleOf = (w: Widget, i: number) => (typeof w.title === 'string' && w.title.trim() ? w.title : `Widget ${i + 1}`);
  if (!widgets.length)
    return {
      text: `${page.title}\n\n(The dashboard has no widgets.)`,
      html: `<h2>${esc(page.title)}</h2><p>The dashboard has no widgets.</p>`,
      attachments: [],
      widgets: { ok: 0, failed: 0 },
    };

  const service = kernel.plugin(widgetDataProvidesRef);
  const answers: WidgetBatchItem[] = [];
  for (let i = 0; i < widgets.length; i += WIDGET_BATCH_MAX) {
    const chunk = widgets.slice(i, i + WIDGET_BATCH_MAX).map((w, j) => ({ id: String(i + j), query: w.query ?? null }));
    answers.push(...(await service.batch(owner, chunk, { fresh: true })));
  }

  const text: string[] = [page.title, ''];
  const html: string[] = [`<h2>${esc(page.title)}</h2>`];
  const attachments: MailAttachment[] = [];
  const used = new Set<string>();
  let ok = 0;
  widgets.forEach((w, i) => {
    const title = titleOf(w, i);
    const answer = answers[i]!;
    html.push(`<h3>${esc(title)}</h3>`);
    if (!answer.ok) {
      const why = `${answer.error.code}: ${answer.error.message}${answer.error.issues?.length ? ` (${answer.error.issues.map((x) => x.message).join(' ')})` : ''}`;
      text.push(`${title}: could not be computed. ${why}`, '');
      html.push(`<table border="1" cellpadding="4" cellspacing="0"><tbody><tr><td>Could not be computed: ${esc(why)}</td></tr></tbody></table>`);
      return;
    }
    ok++;
    const { header, shown, all } = rowsOf(answer.result);
    const name = fileName(i, title, used);
    attachments.push({ filename: name, contentType: 'text/csv; charset=utf-8', content: Buffer.from(csv([header, ...all]), 'utf8') });
    if (answer.result.kind === 'value') text.push(`${title}: ${show(answer.result.value)}`);
    else {
      const note = answer.result.kind === 'series' && all.length > shown.length ? ` (last ${shown.length} of ${all.length} points)` : '';
      text.push(`${title}${note}:`, ...shown.map((r) => `  ${show(r[0]!)}: ${show(r[1]!)}`));
      if (note) html.push(`<p>Last ${shown.length} of ${all.length} points; every point is in ${esc(name)}.</p>`);
    }
    text.push('');
    const head = `<thead><tr>${header.map((h) => `<th align="left">${esc(h)}</th>`).join('')}</tr></thead>`;
    const body = shown.length
      ? shown.map((r) => `<tr>${r.map((c, k) => `<td${k === r.length - 1 ? ' align="right"' : ''}>${esc(show(c))}</td>`).join('')}</tr>`).join('')
      : `<tr><td colspan="${header.length}">No rows.</td></tr>`;
    html.push(`<table border="1" cellpadding="4" cellspacing="0">${head}<tbody>${body}</tbody></table>`);
  });
  const failed = widgets.length - ok;
  if (attachments.length) text.push(`One CSV file per widget is attached${failed ? ` (${failed} could not be computed)` : ''}.`);
  return { text: text.join('\n'), html: html.join('\n'), attachments, widgets: { ok, failed } };
}
