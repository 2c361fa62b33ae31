import { z } from 'zod';
import { AppError, dataOf, errorEnvelopeSchema, type ErrorIssue, type Kernel, type Principal, route } from '../../../kernel/api.js';
import type { NavEntry } from '../provides.js';
import { pagesStoreRef } from '../store.js';
import { canSee } from '../visibility.js';
import { PAGES_NAV_CHANGED } from '../store.js';
import { appKeyOf, pageKey, sectionIdField } from './keys.js';
import { navSchema } from './schema.js';
import { PAGES_ADMIN, type StoredNav } from './store.js';

const navAnswer = dataOf(z.strictObject({ nav: navSchema }));

const entryField = z.union([
  z.strictObject({ pageId: z.string().min(1).max(64) }),
  z.strictObject({ appKey: z.string().min(1).max(40), surface: z.string().min(1).max(64) }),
]);

const navOrderBody = z.strictObject({
  sections: z
    .array(
      z.strictObject({
        id: sectionIdField,
        title: z.string().trim().min(1).max(120),
        entries: z.array(entryField).max(2000),
      }),
    )
    .max(50),
});

const store = (kernel: Kernel) => kernel.plugin(pagesStoreRef);

/** Issues of a whole navigation: section ids once, each entry a page the caller sees or an installed app's dashboard page, once. */
async function check(kernel: Kernel, principal: Principal, nav: StoredNav): Promise<ErrorIssue[]> {
  const pages = store(kernel);
  const [all, apps] = await Promise.all([pages.all(), pages.nav.appSurfaces(null)]);
  const byId = new Map(all.map((p) => [p.id, p]));
  const issues: ErrorIssue[] = [];
  const sections = new Set<string>();
  const seen = new Set<string>();
  nav.sections.forEach((s, n) => {
    if (sections.has(s.id)) issues.push({ path: `body.sections.${n}.id`, code: 'duplicate-section', message: `The section ${s.id} is listed twice.` });
    sections.add(s.id);
    s.entries.forEach((e: NavEntry, m) => {
      const path = `body.sections.${n}.entries.${m}`;
      const key = 'pageId' in e ? pageKey(e.pageId) : appKeyOf(e.appKey, e.surface);
      if ('pageId' in e) {
        const page = byId.get(e.pageId);
        if (!page || !canSee(principal, page)) return void issues.push({ path, code: 'unknown-page', message: `No page ${e.pageId}.` });
      } else if (!apps.has(`${e.appKey}/${e.surface}`))
        return void issues.push({ path, code: 'unknown-surface', message: `${e.appKey}/${e.surface} is not an installed app's dashboard page.` });
      if (seen.has(key)) issues.push({ path, code: 'duplicate-entry', message: 'This entry is already in the navigation.' });
      seen.add(key);
    });
  });
  return issues;
}

export const navRoutes = [
  route({
    method: 'PUT',
    url: '/pages/nav-order',
    summary: 'Arrange the whole navigation',
    description:
      'Replaces every section and entry in one transaction (decisions PG10); pages listed nowhere go to the last "Pages" section. ' +
      'GET /pages then lists pages in this order. 400 VALIDATION_FAILED with an issue per refused item: `duplicate-section` at body.sections.N.id; ' +
      'at body.sections.N.entries.M `unknown-page` (no such page, or one the caller may not see), `unknown-surface` (not a dashboard-page of an installed app) ' +
      'and `duplicate-entry` (an entry listed before). Answers the navigation as the caller sees it.',
    permission: PAGES_ADMIN,
    schema: { body: navOrderBody, response: { 200: navAnswer, 400: errorEnvelopeSchema } },
    handler: async ({ kernel, body, principal, audit }) => {
      const issues = await check(kernel, principal!, body);
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const nav = store(kernel).nav;
      const before = await nav.stored();
      await nav.replace(body);
      audit({ action: 'pages.nav', target: null, diff: { before: before.sections, after: body.sections } });
      await kernel.events.publish(PAGES_NAV_CHANGED, {});
      return { data: { nav: await nav.read(principal!) } };
    },
  }),
];
