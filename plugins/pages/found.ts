import type { Kernel, Principal } from '../../kernel/api.js';
import type { Page } from './provides.js';
import { seenOr404 } from './visibility.js';
import { pagesStoreRef } from './store.js';

export { requireKind, TABLE_PAGE_KINDS } from './kinds.js';

/** The whole store, for the plugin's own routes. */
export const store = (kernel: Kernel) => kernel.plugin(pagesStoreRef);

/** The page, or 404 NOT_FOUND alike for a missing id and a page the caller may not see (decisions PG2). */
export async function visiblePage(kernel: Kernel, principal: Principal, pageId: string): Promise<Page> {
  return seenOr404(principal, await store(kernel).find(pageId));
}
