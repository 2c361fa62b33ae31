/*
 * Issue 30's walk of a new author: the packed SDK in an empty folder (no clone, no network) →
 * init → check → pack → installed on a started instance → the add-on's page opened in the
 * dashboard in Chromium and used → an exception thrown by the add-on's code is logged with the
 * line of server.ts it was thrown at.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLogEntry, type LogEntry } from '../../addons-sdk/src/cli/dev-log.js';
import { installPackedSdk, REPO, type InstalledSdk } from '../../addons-sdk/src/cli/packed-sdk.test-helper.js';
import { uploadPackage } from '../../plugins/add-ons/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, useDashboardBrowser } from './harness.js';

const run = promisify(execFile);

describe.runIf(browserAvailable())('a new author: packed SDK → init → check → pack → install → the page in Chromium → a line-exact error', () => {
  let root: string;
  let sdk: InstalledSdk;
  let addonDir: string;
  let inst: TestInstance;
  let admin: HttpClient;
  let connectionId: string;
  const logLines: string[] = [];
  const { openPage, onScreen, signIn } = useDashboardBrowser('addon-author');

  const svcAddon = (args: string[]) => run(sdk.bin, args, { cwd: addonDir, env: { ...process.env, NO_COLOR: '1' } });

  /** Packs the folder with the installed SDK's bin, uploads the package, plans and installs (or upgrades). */
  async function packAndInstall(version: string, upgrade: boolean): Promise<void> {
    const packed = await svcAddon(['pack']);
    expect(packed.stdout).toContain(`my-notes-${version}.tgz  sha256 `);
    const bytes = await readFile(join(addonDir, `my-notes-${version}.tgz`));
    expect((await uploadPackage(inst.url, admin, bytes)).status).toBe(201);
    const planned = await admin.get(`/api/v1/add-ons/my-notes/plan?version=${version}&connectionId=${connectionId}`);
    expect(planned.status, planned.text).toBe(200);
    const hash = planned.body.data.plan.hash as string;
    const res = upgrade
      ? await admin.post('/api/v1/add-ons/my-notes/upgrade', { version, planHash: hash })
      : await admin.post('/api/v1/add-ons', { key: 'my-notes', version, connectionId, planHash: hash });
    expect(res.status, res.text).toBe(upgrade ? 200 : 201);
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-addon-author-'));
    sdk = await installPackedSdk(root);
    addonDir = join(sdk.dir, 'my-notes');
    ({ inst, admin } = await bootWithAdmin({ logLines }));
    await writeFile(join(root, 'notes.sqlite'), ''); // an empty file is an empty SQLite database
    const made = await admin.post('/api/v1/connections', { name: 'Notes', dialect: 'sqlite', url: `sqlite:${join(root, 'notes.sqlite')}` });
    expect(made.status, made.text).toBe(201);
    connectionId = made.body.data.connection.id;
  }, 240_000);

  afterAll(async () => {
    await inst?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('init, check and pack from the installed SDK; the package installs', async () => {
    const init = await run(sdk.bin, ['init', 'my-notes'], { cwd: sdk.dir });
    expect(init.stdout).toContain('Next: cd my-notes && npm install && npm run check');
    expect((await svcAddon(['check'])).stdout.trim()).toBe('my-notes 0.1.0: ok');
    await packAndInstall('0.1.0', false);
    const placed = await admin.put('/api/v1/surfaces/my-notes/placement', { surface: 'page', nav: { section: 'notes', order: 1 } });
    expect(placed.status, placed.text).toBe(200);
  }, 60_000);

  it("the starter's page works in the dashboard: it lists, adds, and says what was refused, with no CSP violation", async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await page.goto(`${inst.url}/apps/my-notes/page`, { waitUntil: 'load' });
    await onScreen(page, 'app-page', exactly('My Notes'));
    const frame = page.frameLocator('main iframe');
    await frame.getByRole('heading', { name: 'My Notes', level: 1 }).waitFor();
    await expect.poll(() => frame.getByRole('status').textContent()).toBe('No notes yet.');

    await frame.getByLabel('New note').fill('  Buy milk ');
    await frame.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => frame.getByRole('list', { name: 'Notes' }).getByRole('listitem').allTextContents()).toEqual(['Buy milk']);
    await frame.getByLabel('New note').fill('Call the bank');
    await frame.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => frame.getByRole('list', { name: 'Notes' }).getByRole('listitem').allTextContents()).toEqual(['Call the bank', 'Buy milk']);
    // Stored by the add-on's action in its own table.
    const count = await admin.post('/api/v1/public/apps/my-notes/actions/count', { input: null });
    expect(count.body.data.result).toEqual({ notes: 2 });

    // An empty title: the action refuses it (ctx.refuse, 400), and the page says why; nothing is added.
    await frame.getByLabel('New note').fill('   ');
    await frame.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => frame.getByRole('status').textContent()).not.toBe('Added.');
    expect(await frame.getByRole('list', { name: 'Notes' }).getByRole('listitem').count()).toBe(2);
    await expect.poll(() => frame.getByRole('status').textContent()).toBe('A note needs a title.');

    // The starter breaks none of the surface CSP's rules (no inline script or style, no form action).
    expect(problems.filter((p) => /Content Security Policy/i.test(p))).toEqual([]);
    // The refused add answers 400 (ctx.refuse).
    expectNoProblems(problems, [400]);
  }, 60_000);

  it('an exception thrown in server.ts is logged with the line it was thrown at, and dev prints that line with a caret', async () => {
    const serverFile = join(addonDir, 'server.ts');
    const source = await readFile(serverFile, 'utf8');
    const anchor = "      const page = await ctx.db.list('notes', { limit: 500 });";
    const thrower = "      if (ctx.addon.key) throw new Error('count failed on purpose');";
    const lines = source.split('\n');
    const countAt = lines.findIndex((l, i) => l === anchor && lines.slice(0, i).some((p) => p.includes('count: async')));
    expect(countAt).toBeGreaterThan(0);
    lines.splice(countAt, 0, thrower);
    await writeFile(serverFile, lines.join('\n'));
    const manifest = JSON.parse(await readFile(join(addonDir, 'addon.json'), 'utf8')) as { version: string };
    await writeFile(join(addonDir, 'addon.json'), JSON.stringify({ ...manifest, version: '0.1.1' }, null, 2));
    await packAndInstall('0.1.1', true);

    const res = await admin.post('/api/v1/public/apps/my-notes/actions/count', { input: null });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('ADDON_FAILED');
    const line = countAt + 1;
    const logged = await expect
      .poll(() => logLines.map((l) => JSON.parse(l) as LogEntry).find((e) => e.addon === 'my-notes' && e.source))
      .toBeTruthy()
      .then(() => logLines.map((l) => JSON.parse(l) as LogEntry).find((e) => e.addon === 'my-notes' && e.source)!);
    expect(logged.err?.message).toBe('count failed on purpose');
    expect(logged.source).toMatchObject({ file: 'server.ts', line, text: thrower });
    const printed = formatLogEntry(logged, 'my-notes')!.lines;
    expect(printed).toContain(`  ${line} | ${thrower}`);
    expect(printed.join('\n')).toMatch(new RegExp(`server\\.ts:${line}:\\d+`));
  }, 60_000);
});
