import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupAdmin, signedIn } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { atWidth, expectNoProblems, msg, PHONE, useDashboardBrowser, WIDE } from './harness.js';

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };
const pgAvailable = await databaseAvailable('postgres');

describe.runIf(browserAvailable())('the dashboard in a real browser: Settings → Storage', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let target: TempDatabase | null = null;
  // Our own data directory: the instance is restarted on it after the move.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-'));
  const { openPage, onScreen, signIn } = useDashboardBrowser('settings-storage');

  beforeAll(async () => {
    inst = await startInstance({ jobs: { pollMs: 50 }, dataDir });
    admin = await setupAdmin(inst);
  });

  afterAll(async () => {
    await inst?.close();
    await target?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  atWidth(PHONE, (viewport, w) => {
    it(`shows where the data is and says why a target cannot be reached (${w} px)`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      await page.goto(`${inst.url}/settings`, { waitUntil: 'load' });
      await onScreen(page, `settings-${w}`, msg('settings.title'));
      await page
        .getByRole('navigation', { name: msg('settings.sectionsLabel') })
        .getByRole('link', { name: msg('settings.storage.link') })
        .click();
      await onScreen(page, `storage-${w}`, msg('settings.storage.title'));
      const facts = page.locator('dl');
      await facts.getByText('Embedded file (SQLite)').waitFor();
      expect(await facts.textContent()).toContain('meta.sqlite');

      await page.getByLabel(msg('settings.storage.url')).fill('postgres://nobody:pw-not-shown@127.0.0.1:1/meta');
      await page.getByRole('button', { name: msg('settings.storage.test') }).click();
      const alert = page.getByRole('alert');
      await alert.getByText(/Nothing (answered|is listening)/).waitFor();
      expect(await page.textContent('body')).not.toContain('pw-not-shown');
      await onScreen(page, `storage-refused-${w}`, msg('settings.storage.title'));
      expectNoProblems(problems, [400]);
    });
  });

  atWidth(WIDE, (viewport, w) => {
    it.runIf(pgAvailable)(
      `tests, dry-runs and moves the data to PostgreSQL under writes, showing each table's progress and the freeze; after a restart everything is there (${w} px)`,
      async () => {
        target = await createTempDatabase('postgres');
        const { page, problems } = await openPage({ viewport });
        await signIn(page, inst.url, ADMIN);
        await page.goto(`${inst.url}/settings/storage`, { waitUntil: 'load' });
        await onScreen(page, `storage-${w}`, msg('settings.storage.title'));
        await page.getByLabel(msg('settings.storage.url')).fill(target.url);

        await page.getByRole('button', { name: msg('settings.storage.test') }).click();
        await page
          .getByRole('status')
          .filter({ hasText: msg('settings.storage.testOk') })
          .waitFor();

        await page.getByRole('button', { name: msg('settings.storage.dryRun') }).click();
        const dry = page.getByRole('table', { name: msg('settings.storage.dryRunCaption') });
        await dry.waitFor();
        await dry.getByRole('rowheader', { name: 'audit_log' }).waitFor();
        await onScreen(page, `storage-dry-run-${w}`, msg('settings.storage.title'));

        // Someone keeps writing while the data moves: API keys made one after another.
        const made: string[] = [];
        let writing = true;
        const writer = (async () => {
          for (let i = 0; writing; i++) {
            const res = await admin.post('/api/v1/api-keys', { name: `during-move-${i}`, roleId: 'viewer' });
            if (res.status === 201) made.push(`during-move-${i}`);
            else if (res.status !== 503) throw new Error(`a write during the move answered ${res.status}: ${res.text}`);
            await new Promise((r) => setTimeout(r, 25));
          }
        })();
        await page.getByRole('button', { name: msg('settings.storage.run') }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /Moved .* rows/ })
          .waitFor({ timeout: 120_000 });
        // Done: the tables are folded under their count, and open on a click.
        const progress = page.getByRole('table', { name: msg('settings.storage.progressCaption') });
        expect(await progress.isVisible()).toBe(false);
        await page
          .locator('.storage-details summary')
          .filter({ hasText: /tables, [\d,]+ rows/ })
          .click();
        await progress.getByRole('rowheader', { name: 'users' }).waitFor();
        // The freeze's length is in the status line (not repeated below it).
        await page
          .getByRole('status')
          .filter({ hasText: /writes were held for [\d,]+ ms/ })
          .waitFor();
        // Where the data is now, and the old file kept as a backup.
        const facts = page.locator('dl');
        await facts.getByText('PostgreSQL', { exact: true }).waitFor();
        await page.getByText(msg('settings.storage.backup')).waitFor();
        await onScreen(page, `storage-moved-${w}`, msg('settings.storage.title'));
        writing = false;
        await writer;
        expect(made.length).toBeGreaterThan(0);
        const placement = (await admin.get('/api/v1/meta/placement')).body.data;
        expect(placement).toMatchObject({ dialect: 'postgres', previous: { dialect: 'sqlite' } });
        expectNoProblems(problems);

        // A restart on the same data directory opens PostgreSQL; every key acknowledged during the move is there.
        await inst.close();
        inst = await startInstance({ jobs: { pollMs: 50 }, dataDir });
        const after = await openPage({ viewport });
        await signIn(after.page, inst.url, ADMIN);
        await after.page.goto(`${inst.url}/settings/storage`, { waitUntil: 'load' });
        await after.page.locator('dl').getByText('PostgreSQL', { exact: true }).waitFor();
        await after.page.goto(`${inst.url}/api-keys`, { waitUntil: 'load' });
        await onScreen(after.page, `api-keys-after-restart-${w}`, msg('people.keys.title'));
        const keys = after.page.getByRole('main');
        // The list's first page (oldest first) shows the first key made during the move; the API check below reads them all.
        await keys.getByText(made[0]!, { exact: true }).first().waitFor();
        // And through the API, every one of them.
        const again = await signedIn(inst, ADMIN.email, ADMIN.password);
        const names = new Set<string>();
        for (let cursor: string | null = null; ;) {
          const listed: { body: { data: { apiKeys: { name: string }[]; nextCursor: string | null } } } = await again.get(
            `/api/v1/api-keys?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          for (const k of listed.body.data.apiKeys) names.add(k.name);
          cursor = listed.body.data.nextCursor;
          if (!cursor) break;
        }
        expect(made.filter((n) => !names.has(n))).toEqual([]);
        expectNoProblems(after.problems);
      },
    );
  });
});
