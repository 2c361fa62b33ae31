import { z } from 'zod';
import {
  AppError,
  cursorField,
  dataOf,
  encodeCursor,
  errorEnvelopeSchema,
  type ErrorIssue,
  type Kernel,
  listQuery,
  okSchema,
  reply,
  route,
} from '../../kernel/api.js';
import { rolesRef } from '../roles/provides.js';
import { checkConfig } from './config/check.js';
import { store, TABLE_PAGE_KINDS, visiblePage } from './found.js';
import type { Page } from './provides.js';
import { iconField, pageIdParams, pageKindField, pageSchema, slugField, titleField, visibleToField } from './schemas.js';
import { slugify } from './slug.js';
import { PAGES_SECTION, sectionIdField } from './nav/keys.js';
import { canSee } from './visibility.js';
import { viewSchema } from './views/schemas.js';

async function checkRoles(kernel: Kernel, visibleTo: { roles: string[] } | null | undefined, issues: ErrorIssue[]): Promise<void> {
  if (!visibleTo) return;
  const unknown = new Set(await kernel.plugin(rolesRef).unknownRoleIds(visibleTo.roles));
  visibleTo.roles.forEach((r, i) => {
    if (unknown.has(r)) issues.push({ path: `body.visibleTo.roles.${i}`, code: 'unknown-role', message: `No role ${r}.` });
  });
}

const auditView = (p: Page) => ({
  slug: p.slug,
  title: p.title,
  kind: p.kind,
  icon: p.icon,
  connectionId: p.connectionId,
  table: p.table,
  visibleTo: p.visibleTo,
});

const pageAnswer = dataOf(z.strictObject({ page: pageSchema }));

export const pageRoutes = [
  route({
    method: 'GET',
    url: '/pages',
    summary: 'The pages the caller may see, in navigation order',
    description:
      'Only pages whose visibleTo names one of the caller’s roles (or is null) and, for a table page, whose table a data.read grant reaches (decisions PG2). ' +
      'In navigation order as last arranged (PUT /pages/nav-order), then by id; pages made since come after.',
    permission: 'pages.read',
    schema: {
      query: listQuery.extend({
        kind: pageKindField.optional(),
        connectionId: z.string().min(1).max(64).optional(),
        q: z.string().min(1).max(200).optional().describe('Title contains, case-insensitive.'),
        cursor: cursorField(z.strictObject({ position: z.number().int(), id: z.string().min(1).max(64) })),
      }),
      response: { 200: dataOf(z.strictObject({ pages: z.array(pageSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query, principal }) => {
      const page = await store(kernel).list({ kind: query.kind, connectionId: query.connectionId, q: query.q }, query.limit, query.cursor, (p) =>
        canSee(principal!, p),
      );
      return { data: { pages: page.pages, nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/pages',
    summary: 'Create a page',
    description:
      '400 VALIDATION_FAILED: `kind-reserved` at body.kind for `custom`; connectionId and table are required for list, detail and form pages; ' +
      '`unknown-table` at body.table for a table the connection’s effective schema lacks or the caller has no data.read grant on; `unknown-role` in visibleTo; ' +
      'config checked as PATCH /pages/{pageId}/config checks it, issues at body.config…. 404 NOT_FOUND for an unknown connection. ' +
      'Without slug, one is made from the title and made free as generation does (`-2`, `-3`, …). ' +
      '`section` appends the page to that navigation section (`unknown-section` for one that does not exist; `pages`, the last section, always does). 409 CONFLICT `slug-taken`.',
    permission: 'pages.write',
    schema: {
      body: z.strictObject({
        title: titleField,
        slug: slugField.optional(),
        kind: pageKindField,
        connectionId: z.string().min(1).max(64).optional(),
        table: z.string().min(1).max(255).optional(),
        config: z.record(z.string(), z.unknown()).optional(),
        icon: iconField.optional(),
        visibleTo: visibleToField.optional(),
        section: sectionIdField.optional().describe('A navigation section to append the page to; without it the page shows in the last "Pages" section.'),
      }),
      response: { 201: pageAnswer, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, body, principal, audit }) => {
      const issues: ErrorIssue[] = [];
      if (body.kind === 'custom') issues.push({ path: 'body.kind', code: 'kind-reserved', message: 'Custom pages are reserved; they cannot be created yet.' });
      if (TABLE_PAGE_KINDS.includes(body.kind)) {
        if (!body.connectionId) issues.push({ path: 'body.connectionId', code: 'required', message: `A ${body.kind} page needs a connection.` });
        if (!body.table) issues.push({ path: 'body.table', code: 'required', message: `A ${body.kind} page needs a table.` });
      }
      const pages = store(kernel);
      // The effective schema decides (decisions PG4): an unknown connection is 404, a table it lacks or the caller cannot read `unknown-table`.
      if (body.connectionId && body.table && !(await pages.tables.forCaller(principal!, body.connectionId, body.table)))
        issues.push({ path: 'body.table', code: 'unknown-table', message: `No table ${body.table} on that connection.` });
      await checkRoles(kernel, body.visibleTo, issues);
      if (body.section && body.section !== PAGES_SECTION && !(await store(kernel).nav.hasSection(body.section)))
        issues.push({ path: 'body.section', code: 'unknown-section', message: `No navigation section ${body.section}.` });
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const target = { kind: body.kind, connectionId: body.connectionId ?? null, table: body.table ?? null };
      const config = body.config ? await checkConfig(pages.tables, principal!, target, body.config, 'body.config', (ref) => pages.findRef(ref)) : {};
      const page = await pages.create({
        slug: body.slug ?? (await pages.freeSlug(slugify(body.title))),
        title: body.title,
        kind: body.kind,
        connectionId: body.connectionId ?? null,
        table: body.table ?? null,
        config,
        icon: body.icon ?? null,
        visibleTo: body.visibleTo ?? null,
        createdBy: principal!.userId,
      });
      if (body.section && (await pages.nav.hasSection(body.section))) await pages.nav.append(page.id, body.section);
      audit({ action: 'pages.create', target: { type: 'page', id: page.id }, diff: auditView(page) });
      return reply(201, { data: { page } });
    },
  }),
  route({
    method: 'GET',
    url: '/pages/:pageId',
    summary: 'One page, and the view a table page opens with',
    description:
      '404 NOT_FOUND for a missing id and for a page the caller may not see alike. defaultView is the shared view marked default, or null; ' +
      'myLayout is the layout the signed-in caller saved for this page with PUT /me/views/{pageId}/layout, or null (an API key has none; decisions ME7).',
    permission: 'pages.read',
    schema: {
      params: pageIdParams,
      response: {
        200: dataOf(
          z.strictObject({
            page: pageSchema,
            defaultView: viewSchema.nullable(),
            myLayout: z.strictObject({ layout: z.record(z.string(), z.unknown()), updatedAt: z.number().int() }).nullable(),
          }),
        ),
        404: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, params, principal }) => {
      const page = await visiblePage(kernel, principal!, params.pageId);
      const pages = store(kernel);
      const userId = principal!.kind === 'session' ? principal!.userId : null;
      const [defaultView, myLayout] = await Promise.all([pages.views.defaultOf(page.id), userId ? pages.personalLayout(userId, page.id) : null]);
      return { data: { page, defaultView, myLayout } };
    },
  }),
  route({
    method: 'PATCH',
    url: '/pages/:pageId',
    summary: "Change a page's title, slug, icon or visibility",
    description: '404 NOT_FOUND for a page the caller may not see; 409 CONFLICT `slug-taken`; 400 `unknown-role` in visibleTo.',
    permission: 'pages.write',
    schema: {
      params: pageIdParams,
      body: z
        .strictObject({ title: titleField.optional(), slug: slugField.optional(), icon: iconField.optional(), visibleTo: visibleToField.optional() })
        .refine((b) => Object.keys(b).length > 0, { message: 'Name at least one of title, slug, icon, visibleTo.' }),
      response: { 200: pageAnswer, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const before = await visiblePage(kernel, principal!, params.pageId);
      const issues: ErrorIssue[] = [];
      await checkRoles(kernel, body.visibleTo, issues);
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const after = await store(kernel).update(before.id, body);
      if (!after) throw new AppError('NOT_FOUND', { message: 'No such page.' });
      const was = auditView(before);
      const now = auditView(after);
      const fields = (Object.keys(now) as Array<keyof typeof now>).filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k]));
      audit({
        action: 'pages.update',
        target: { type: 'page', id: after.id },
        diff: Object.fromEntries(fields.map((k) => [k, { from: was[k], to: now[k] }])),
      });
      // Title, slug, icon and visibility are all what the navigation shows.
      await store(kernel).changed(after, true);
      return { data: { page: after } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/pages/:pageId',
    summary: 'Delete a page',
    description:
      'Its shared views, every user’s saved layout of it and what other plugins keep about it go in one transaction (decisions PG8). ' +
      '409 PAGE_IN_USE while something uses it (params name what, e.g. params.reports: the scheduled reports’ ids). 404 NOT_FOUND for a page the caller may not see.',
    permission: 'pages.write',
    schema: { params: pageIdParams, response: { 200: okSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, params, principal, audit }) => {
      const page = await visiblePage(kernel, principal!, params.pageId);
      const pages = store(kernel);
      const used = await pages.inUse(page.id);
      if (used) throw new AppError('PAGE_IN_USE', { params: used });
      if (!(await pages.remove(page.id))) throw new AppError('NOT_FOUND', { message: 'No such page.' });
      audit({ action: 'pages.delete', target: { type: 'page', id: page.id }, diff: auditView(page) });
      await pages.changed(page, true);
      return { data: { ok: true as const } };
    },
  }),
  route({
    method: 'POST',
    url: '/pages/:pageId/duplicate',
    summary: 'Copy a page: config, layout and shared views, without its generated key',
    description:
      'The copy is titled `<title> (copy)` unless a title is given; without slug one is made free from the title. ' +
      '404 NOT_FOUND for a page the caller may not see; 409 CONFLICT `slug-taken` for a given slug in use.',
    permission: 'pages.write',
    schema: {
      params: pageIdParams,
      body: z.strictObject({ title: titleField.optional(), slug: slugField.optional() }),
      response: { 201: pageAnswer, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const source = await visiblePage(kernel, principal!, params.pageId);
      const pages = store(kernel);
      const title = body.title ?? `${source.title} (copy)`.slice(0, 200);
      const page = await pages.create({
        slug: body.slug ?? (await pages.freeSlug(slugify(title))),
        title,
        kind: source.kind,
        connectionId: source.connectionId,
        table: source.table,
        config: source.config,
        layout: source.layout,
        icon: source.icon,
        visibleTo: source.visibleTo,
        generatedKey: null,
        createdBy: principal!.userId,
      });
      await pages.views.copy(source.id, page.id, principal!.userId);
      audit({ action: 'pages.duplicate', target: { type: 'page', id: page.id }, diff: { ...auditView(page), from: source.id } });
      return reply(201, { data: { page } });
    },
  }),
];
