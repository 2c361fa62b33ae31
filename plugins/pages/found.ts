import { AppError, type ErrorIssue, type Kernel, type Principal } from '../../kernel/api.js';
import type { Page, PageKind } from './provides.js';
import { canSee } from './visibility.js';
import { pagesStoreRef } from './store.js';

/** The whole store, for the plugin's own routes. */
export const store = (kernel: Kernel) => kernel.plugin(pagesStoreRef);

/** The page, or 404 NOT_FOUND alike for a missing id and a page the caller may not see (decisions PG2). */
export async function visiblePage(kernel: Kernel, principal: Principal, pageId: string): Promise<Page> {
  const page = await store(kernel).find(pageId);
  if (!page || !canSee(principal, page)) throw new AppError('NOT_FOUND', { message: 'No such page.' });
  return page;
}

/** 400 VALIDATION_FAILED at params.pageId when the page is not of one of `kinds` (`code`: not-a-dashboard, not-a-table-page). */
export function requireKind(page: Page, kinds: readonly PageKind[], code: string, message: string): void {
  if (kinds.includes(page.kind)) return;
  const issue: ErrorIssue = { path: 'params.pageId', code, message };
  throw new AppError('VALIDATION_FAILED', { issues: [issue] });
}

export const TABLE_PAGE_KINDS: readonly PageKind[] = ['list', 'detail', 'form'];
