import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { call } from '../../../test/helpers/contract.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { activeUser, bootWithAdmin, issuePaths } from '../../../test/helpers/identity.js';
import type { MetaChoice, TestInstance } from '../../../test/helpers/instance.js';
import { panelPackage, uploadPackage } from '../../add-ons/testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

type Item = { type: 'page'; pageId: string; slug: string } | { type: 'app'; appKey: string; surface: string; title: string };
type Nav = { sections: Array<{ id: string; title: string; entries: Item[] }> };

/** What GET /pages/nav answers, as the body PUT /pages/nav-order takes. */
const asBody = (nav: Nav) => ({
  sections: nav.sections.map((s) => ({
    id: s.id,
    title: s.title,
    entries: s.entries.map((e) => (e.type === 'page' ? { pageId: e.pageId } : { appKey: e.appKey, surface: e.surface })),
  })),
});
/** Each section as `id: entry, entry` (page slugs, apps as `appKey/surface`). */
const outline = (nav: Nav) => nav.sections.map((s) => `${s.id}: ${s.entries.map((e) => (e.type === 'page' ? e.slug : `${e.appKey}/${e.surface}`)).join(', ')}`);

function navFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let editor: HttpClient;
  let viewer: HttpClient;
  const ids: Record<string, string> = {};

  const readNav = async (client: HttpClient): Promise<Nav> => {
    // The seed has no GET of the navigation: the dashboard reads it from /bootstrap (BO2).
    const res = await call(inst, client, 'GET', '/api/v1/bootstrap');
    expect(res.status, res.text).toBe(200);
    return res.body.data.session.nav as Nav;
  };
  const putNav = (client: HttpClient, body: object) => call(inst, client, 'PUT', '/api/v1/pages/nav-order', body);
  const create = async (body: object) => {
    const res = await call(inst, editor, 'POST', '/api/v1/pages', body);
    expect(res.status, res.text).toBe(201);
    ids[res.body.data.page.slug] = res.body.data.page.id;
    return res.body.data.page.id as string;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta }));
    editor = (await activeUser(inst, admin, 'ed@example.com', ['editor'])).client;
    viewer = (await activeUser(inst, admin, 'vi@example.com', ['viewer'])).client;
    await create({ title: 'Home', kind: 'dashboard' });
    await create({ title: 'Report', kind: 'dashboard', visibleTo: { roles: ['editor'] } });
    await create({ title: 'Other', kind: 'dashboard' });
  });
  afterAll(async () => inst?.close());

  it('lists pages in no section in a last "Pages" section, each caller only the pages they may see', async () => {
    expect(outline(await readNav(editor))).toEqual(['pages: home, report, other']);
    expect(outline(await readNav(viewer))).toEqual(['pages: home, other']);
  });

  it('replaces the whole navigation (pages.admin only) and reads it back in order; GET /pages follows it', async () => {
    const body = {
      sections: [
        { id: 'main', title: 'Main', entries: [{ pageId: ids['other'] }, { pageId: ids['report'] }] },
        { id: 'later', title: 'Later', entries: [] },
      ],
    };
    expect((await putNav(editor, body)).status).toBe(403);
    const put = await putNav(admin, body);
    expect(put.status, put.text).toBe(200);
    expect(outline(put.body.data.nav)).toEqual(['main: other, report', 'later: ', 'pages: home']);
    expect(put.body.data.nav.sections[0]).toMatchObject({ id: 'main', title: 'Main' });
    expect(put.body.data.nav.sections[0].entries[0]).toEqual({
      type: 'page',
      pageId: ids['other'],
      slug: 'other',
      title: 'Other',
      icon: null,
      kind: 'dashboard',
    });
    // The round trip changes nothing.
    const again = await putNav(admin, asBody(await readNav(admin)));
    expect(again.status, again.text).toBe(200);
    expect(outline(again.body.data.nav)).toEqual(['main: other, report', 'later: ', 'pages: home']);
    // A viewer sees neither the page kept from them nor a section left empty.
    expect(outline(await readNav(viewer))).toEqual(['main: other', 'pages: home']);
    const listed = await call(inst, admin, 'GET', '/api/v1/pages');
    expect(listed.body.data.pages.map((p: { slug: string }) => p.slug)).toEqual(['other', 'report', 'home']);

    const audit = await admin.get('/api/v1/audit?limit=500');
    expect(audit.body.data.entries.filter((e: { action: string }) => e.action === 'pages.nav').length).toBe(2);
  });

  it('appends a page made with `section` to that section, and refuses an unknown section', async () => {
    await create({ title: 'Fresh', kind: 'dashboard', section: 'main' });
    await create({ title: 'Loose', kind: 'dashboard', section: 'pages' });
    expect(outline(await readNav(admin))).toEqual(['main: other, report, fresh', 'later: ', 'pages: home, loose']);
    const unknown = await call(inst, editor, 'POST', '/api/v1/pages', { title: 'Lost', kind: 'dashboard', section: 'nowhere' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues).toEqual([expect.objectContaining({ path: 'body.section', code: 'unknown-section' })]);
  });

  it('refuses an entry twice, an unknown page, an app that is not installed and a section twice, each at its place', async () => {
    const res = await putNav(admin, {
      sections: [
        { id: 'main', title: 'Main', entries: [{ pageId: ids['home'] }, { pageId: 'p_nope' }] },
        { id: 'main', title: 'Again', entries: [{ pageId: ids['home'] }, { appKey: 'absent', surface: 'page' }] },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.issues.map((i: { path: string; code: string }) => `${i.path} ${i.code}`)).toEqual([
      'body.sections.0.entries.1 unknown-page',
      'body.sections.1.id duplicate-section',
      'body.sections.1.entries.0 duplicate-entry',
      'body.sections.1.entries.1 unknown-surface',
    ]);
    const bad = await putNav(admin, { sections: [{ id: 'Main!', title: 'Main', entries: [] }] });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad)).toEqual(['body.sections.0.id']);
    // Nothing was written.
    expect(outline(await readNav(admin))).toEqual(['main: other, report, fresh', 'later: ', 'pages: home, loose']);
  });

  it("lists an app's dashboard page placed through the add-ons plugin, and drops it with the app", async () => {
    expect((await uploadPackage(inst.url, admin, await panelPackage())).status).toBe(201);
    const plan = await admin.get('/api/v1/add-ons/panel/plan?version=1.0.0');
    expect(plan.status, plan.text).toBe(200);
    expect((await admin.post('/api/v1/add-ons', { key: 'panel', version: '1.0.0', planHash: plan.body.data.plan.hash })).status).toBe(201);

    const placed = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: { section: 'tools', order: 0 } });
    expect(placed.status, placed.text).toBe(200);
    const nav = await readNav(admin);
    // The round trip above stored the last section `pages` too: the new section comes after it.
    expect(outline(nav)).toEqual(['main: other, report, fresh', 'later: ', 'pages: home, loose', 'tools: panel/page']);
    expect(nav.sections[3]).toEqual({ id: 'tools', title: 'Tools', entries: [{ type: 'app', appKey: 'panel', surface: 'page', title: 'Panel' }] });
    // The editor uses apps (add-ons.use); the viewer does not.
    expect(outline(await readNav(editor))).toContain('tools: panel/page');
    expect(outline(await readNav(viewer))).toEqual(['main: other, fresh', 'pages: home, loose']);

    // Arranged through the pages plugin, the placement GET /surfaces answers follows.
    const moved = asBody(nav);
    moved.sections[0]!.entries.push(moved.sections[3]!.entries.pop()!);
    const put = await putNav(admin, moved);
    expect(put.status, put.text).toBe(200);
    expect(outline(put.body.data.nav)).toEqual(['main: other, report, fresh, panel/page', 'later: ', 'pages: home, loose', 'tools: ']);
    const surfaces = await admin.get('/api/v1/surfaces');
    expect(surfaces.body.data.surfaces.find((s: { name: string }) => s.name === 'page').placement).toEqual({ section: 'main', order: 3 });

    // Removed with its app, in the app's removal; an entry for it is then refused.
    expect((await admin.delete('/api/v1/add-ons/panel')).status).toBe(200);
    expect(outline(await readNav(admin))).toEqual(['main: other, report, fresh', 'later: ', 'pages: home, loose', 'tools: ']);
    const stale = await putNav(admin, moved);
    expect(stale.status).toBe(400);
    expect(stale.body.error.issues).toEqual([expect.objectContaining({ path: 'body.sections.0.entries.3', code: 'unknown-surface' })]);
  });

  it('takes two arrangements at once: both answer 200 and the navigation is one of them', async () => {
    const now = asBody(await readNav(admin));
    const a = { sections: [{ id: 'one', title: 'One', entries: [] }, ...[...now.sections].reverse()] };
    const b = { sections: [...now.sections, { id: 'two', title: 'Two', entries: [] }] };
    const [ra, rb] = await Promise.all([putNav(admin, a), putNav(admin, b)]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    const after = outline(await readNav(admin));
    expect([outline(ra.body.data.nav), outline(rb.body.data.nav)]).toContainEqual(after);
    expect((await putNav(admin, now)).status).toBe(200);
  });

  it('drops a deleted page from the navigation', async () => {
    expect((await call(inst, editor, 'DELETE', `/api/v1/pages/${ids['report']}`)).status).toBe(200);
    expect(outline(await readNav(admin))).toEqual(['main: other, fresh', 'later: ', 'pages: home, loose', 'tools: ']);
  });
}

describe('navigation on SQLite', () => navFlows('sqlite'));
describe.runIf(pg)('navigation on PostgreSQL', () => navFlows('postgres'));
describe.runIf(mysql)('navigation on MariaDB', () => navFlows('mysql'));
