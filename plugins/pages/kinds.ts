import { AppError, type ErrorIssue } from '../../kernel/api.js';
import type { Page, PageKind } from './provides.js';

/** 400 VALIDATION_FAILED at params.pageId when the page is not of one of `kinds` (`code`: not-a-dashboard, not-a-table-page). */
export function requireKind(page: Page, kinds: readonly PageKind[], code: string, message: string): void {
  if (kinds.includes(page.kind)) return;
  const issue: ErrorIssue = { path: 'params.pageId', code, message };
  throw new AppError('VALIDATION_FAILED', { issues: [issue] });
}

export const TABLE_PAGE_KINDS: readonly PageKind[] = ['list', 'detail', 'form'];
