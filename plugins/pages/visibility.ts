import { AppError, type Principal } from '../../kernel/api.js';
import type { Page } from './provides.js';

export const DATA_READ = 'data.read';

/**
 * The page rule (decisions PG2): the caller's roles meet `visibleTo.roles` (null: anyone with
 * pages.read), and a table page needs a data.read grant reaching its table. A principal holding
 * everything (admin) sees every page, so the navigation's owner can manage all of it.
 */
export function canSee(principal: Principal, page: Page): boolean {
  if (principal.permissions.all) return true;
  if (page.visibleTo && !page.visibleTo.roles.some((r) => principal.roleIds.includes(r))) return false;
  if (page.connectionId && page.table && principal.permissions.grantOn(DATA_READ, page.connectionId, page.table) === null) return false;
  return true;
}

/** The page, or 404 NOT_FOUND alike for a missing one and one the caller may not see. */
export function seenOr404(principal: Principal, page: Page | null): Page {
  if (!page || !canSee(principal, page)) throw new AppError('NOT_FOUND', { message: 'No such page.' });
  return page;
}
