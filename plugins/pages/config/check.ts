import type { z } from 'zod';
import { AppError, type ErrorIssue, type Principal } from '../../../kernel/api.js';
import { parseText, RowInputError } from '../../../engine/rows/index.js';
import { checkGridQuery } from '../grid-query.js';
import type { Page, PageKind } from '../provides.js';
import type { TableAccess } from '../table-access.js';
import { CONFIG_SCHEMAS, CONFIG_VERSION, type ListConfig, type RecordConfig } from './schemas.js';

export function zodToIssues(path: string, error: z.ZodError): ErrorIssue[] {
  return error.issues.map((i) => ({ path: [path, ...i.path.map(String)].join('.'), code: i.code, message: i.message }));
}

const unknownColumn = (path: string, name: string): ErrorIssue => ({ path, code: 'unknown-column', message: `No column "${name}" in this table.` });

export interface ConfigTarget {
  kind: PageKind;
  connectionId: string | null;
  table: string | null;
}

/** Finds a page by id or generated key (a list's detailPage, a detail's listPage). */
export type PageLookup = (ref: string) => Promise<Page | null>;

/**
 * The kind's config checked against the table's current effective schema as the caller reads it
 * (decisions PG5), answered as stored: `version` 1 and, for a table page, the page's connection
 * and table. 400 VALIDATION_FAILED with the issues under `path` (`body` for PATCH, `body.config` for POST).
 */
export async function checkConfig(
  access: TableAccess,
  principal: Principal,
  page: ConfigTarget,
  config: unknown,
  path: string,
  findPage: PageLookup,
): Promise<Record<string, unknown>> {
  const parsed = CONFIG_SCHEMAS[page.kind].safeParse(config);
  if (!parsed.success) throw new AppError('VALIDATION_FAILED', { issues: zodToIssues(path, parsed.error) });
  if (page.kind === 'custom') return parsed.data;
  if (page.kind === 'dashboard') return { ...parsed.data, version: CONFIG_VERSION };
  const table = await access.ofPage(principal, page, path);
  const issues: ErrorIssue[] = [];
  const readable = (name: string) => table.readable.has(name);
  const column = (name: string | null | undefined, at: string) => {
    if (name !== null && name !== undefined && !readable(name)) issues.push(unknownColumn(at, name));
  };
  const pageOf = async (ref: string | null | undefined, kind: PageKind, at: string) => {
    if (ref === null || ref === undefined) return;
    const found = await findPage(ref);
    if (!found || found.kind !== kind || found.connectionId !== page.connectionId || found.table !== page.table)
      issues.push({ path: at, code: 'unknown-page', message: `No ${kind} page ${ref} of this table.` });
  };
  if (page.kind === 'list') {
    const c = parsed.data as ListConfig;
    c.columns?.forEach((col, i) => column(col.column, `${path}.columns.${i}.column`));
    column(c.displayColumn, `${path}.displayColumn`);
    // Sort and filters through the data API's own parser, so a config holds only what a grid can ask.
    const sortIssues = checkGridQuery(table, { sort: c.sort?.map((s) => (s.direction === 'desc' ? '-' : '') + s.column).join(',') }, path);
    issues.push(...sortIssues.map((i) => (i.path === `${path}.sort` ? { ...i, path: sortPath(path, c, i) } : i)));
    issues.push(...checkGridQuery(table, { filters: c.filters }, path));
    await pageOf(c.detailPage, 'detail', `${path}.detailPage`);
  } else {
    const c = parsed.data as RecordConfig;
    c.fields?.forEach((f, i) => {
      if (!readable(f.column) && !(f.secret === true && table.masked.has(f.column))) issues.push(unknownColumn(`${path}.fields.${i}.column`, f.column));
    });
    for (const [name, value] of Object.entries(c.defaults ?? {})) {
      const at = `${path}.defaults.${name}`;
      const col = readable(name) ? table.table.columns.find((x) => x.name === name) : undefined;
      if (!col) issues.push(unknownColumn(at, name));
      else if (value !== null) {
        // A default is a value the column takes, read as the data API reads a filter's text.
        try {
          parseText(col, String(value), at);
        } catch (err) {
          if (!(err instanceof RowInputError)) throw err;
          issues.push(...err.issues.map((i) => ({ path: at, code: 'invalid', message: i.message })));
        }
      }
    }
    column(c.displayColumn, `${path}.displayColumn`);
    c.primaryKey?.forEach((name, i) => column(name, `${path}.primaryKey.${i}`));
    await pageOf(c.listPage, 'list', `${path}.listPage`);
  }
  if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
  return { ...parsed.data, version: CONFIG_VERSION, connectionId: page.connectionId, table: page.table };
}

/** The sort key an issue names (`… "col" …`), else the sort as a whole. */
function sortPath(path: string, c: ListConfig, issue: ErrorIssue): string {
  const i = c.sort?.findIndex((s) => issue.message.includes(`"${s.column}"`)) ?? -1;
  return i >= 0 ? `${path}.sort.${i}.column` : `${path}.sort`;
}
