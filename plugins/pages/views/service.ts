import { z } from 'zod';
import { AppError, type ErrorIssue, type Principal } from '../../../kernel/api.js';
import { checkGridQuery } from '../grid-query.js';
import { requireKind, TABLE_PAGE_KINDS } from '../kinds.js';
import type { Page, ViewProposal } from '../provides.js';
import type { TableAccess } from '../table-access.js';
import { seenOr404 } from '../visibility.js';
import { viewName, viewQuerySchema } from './schemas.js';
import type { PageView, ViewStore } from './store.js';

export type ViewQuery = z.infer<typeof viewQuerySchema>;

const PAGES_WRITE = 'pages.write';
const proposalSchema = z.object({ name: viewName, query: viewQuerySchema });

const zodIssues = (error: z.ZodError): ErrorIssue[] => error.issues.map((i) => ({ path: i.path.join('.'), code: i.code, message: i.message }));

/** A refusal as issues at `path` (a dry run answers what the route would throw). */
function issuesOf(err: unknown, path: string): ErrorIssue[] {
  if (!(err instanceof AppError)) throw err;
  if (err.code === 'NOT_FOUND') return [{ path, code: 'not-found', message: 'No page with this id that you may see.' }];
  if (err.issues?.length) return err.issues.map((i) => ({ ...i, path: i.path.startsWith('params.pageId') ? path : i.path.replace(/^body\./, '') }));
  return [{ path, code: String(err.params?.['reason'] ?? err.code), message: err.message }];
}

/**
 * Shared views as the routes make them and as another plugin does (PagesProvides.checkView,
 * createView): one set of checks (decisions PG7, PG11).
 */
export class SharedViews {
  constructor(
    private readonly find: (id: string) => Promise<Page | null>,
    private readonly tables: TableAccess,
    private readonly views: ViewStore,
  ) {}

  /** A table page the caller sees: 404 NOT_FOUND otherwise; 400 `not-a-table-page` for a dashboard (or a custom page). */
  async tablePage(principal: Principal, pageId: string): Promise<Page> {
    const page = seenOr404(principal, await this.find(pageId));
    requireKind(page, TABLE_PAGE_KINDS, 'not-a-table-page', 'Only list, detail and form pages have shared views.');
    return page;
  }

  /** The query against the page's table as the caller reads it, with the data API's parser; issues under `path` (400 `unknown-table` thrown). */
  async queryIssues(principal: Principal, page: Page, query: ViewQuery, path: string): Promise<ErrorIssue[]> {
    const table = await this.tables.ofPage(principal, page, path);
    const issues = checkGridQuery(table, query, path);
    for (const name of Object.keys(query.columnWidths ?? {}))
      if (!table.readable.has(name))
        issues.push({ path: `${path}.columnWidths.${name}`, code: 'unknown-column', message: `No column "${name}" in this table.` });
    return issues;
  }

  /** 400 VALIDATION_FAILED with queryIssues. */
  async checkQuery(principal: Principal, page: Page, query: ViewQuery, path: string): Promise<void> {
    const issues = await this.queryIssues(principal, page, query, path);
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
  }

  /** The query checked, then the view saved (409 `name-taken`, `too-many-views`). */
  async create(principal: Principal, page: Page, input: { name: string; query: ViewQuery; isDefault: boolean }): Promise<PageView> {
    await this.checkQuery(principal, page, input.query, 'body.query');
    return this.views.create(page.id, { ...input, createdBy: principal.userId });
  }

  /** PagesProvides.checkView: what create would refuse, as issues; nothing written. */
  async check(principal: Principal, proposal: ViewProposal): Promise<ErrorIssue[]> {
    if (!principal.permissions.has(PAGES_WRITE)) return [{ path: 'pageId', code: 'forbidden', message: 'You may not edit pages (pages.write).' }];
    let page: Page;
    try {
      page = await this.tablePage(principal, proposal.pageId);
    } catch (err) {
      return issuesOf(err, 'pageId');
    }
    const parsed = proposalSchema.safeParse({ name: proposal.name, query: proposal.query });
    if (!parsed.success) return zodIssues(parsed.error);
    let issues: ErrorIssue[];
    try {
      issues = await this.queryIssues(principal, page, parsed.data.query, 'query');
    } catch (err) {
      issues = issuesOf(err, 'query');
    }
    const refused = await this.views.refusalNow(page.id, parsed.data.name);
    if (refused) issues.push(...issuesOf(refused, 'name'));
    return issues;
  }

  /** PagesProvides.createView: the route's refusals, thrown. */
  async createFor(principal: Principal, proposal: ViewProposal): Promise<PageView> {
    if (!principal.permissions.has(PAGES_WRITE)) throw new AppError('FORBIDDEN', { params: { permission: PAGES_WRITE } });
    const page = await this.tablePage(principal, proposal.pageId);
    const parsed = proposalSchema.safeParse({ name: proposal.name, query: proposal.query });
    if (!parsed.success) throw new AppError('VALIDATION_FAILED', { issues: zodIssues(parsed.error) });
    return this.create(principal, page, { ...parsed.data, isDefault: false });
  }
}
