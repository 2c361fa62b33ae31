import type { Kernel, MailAttachment, Principal } from '../../kernel/api.js';
import type { Page } from '../pages/provides.js';

/** What a dashboard's `summary` mails: a text part, an HTML part, and files. */
export interface DashboardSummary {
  text: string;
  html: string;
  attachments: MailAttachment[];
}

interface Widget {
  id?: string;
  title?: string;
  query?: unknown;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * THE SEAM for widget data (RP3). Issue 28 §4 wants each widget's value or top groups as an HTML
 * table with one CSV per widget, computed by §2's widget-data plugin (built in parallel). Until
 * that plugin provides a way to run a widget query for a principal, this mails each widget's
 * title and its query as text, and attaches nothing. When it exists: require it in the manifest,
 * run `owner`'s queries through it here (the owner's grants as they are now), and render the
 * results; the run, the mail and the tests around it stay as they are.
 */
export async function summarizeDashboard(_kernel: Kernel, _owner: Principal, page: Page): Promise<DashboardSummary> {
  const widgets = (Array.isArray((page.layout as { widgets?: unknown } | null)?.widgets) ? (page.layout as { widgets: Widget[] }).widgets : []) as Widget[];
  const lines = widgets.map((w, i) => `${w.title || `Widget ${i + 1}`}: ${JSON.stringify(w.query ?? null)}`);
  const text = widgets.length ? `${page.title}\n\n${lines.join('\n')}` : `${page.title}\n\n(The dashboard has no widgets.)`;
  const rows = widgets
    .map((w, i) => `<tr><td>${esc(w.title || `Widget ${i + 1}`)}</td><td><code>${esc(JSON.stringify(w.query ?? null))}</code></td></tr>`)
    .join('');
  const html = `<h2>${esc(page.title)}</h2><table><thead><tr><th>Widget</th><th>Query</th></tr></thead><tbody>${rows}</tbody></table>`;
  return { text, html, attachments: [] };
}
