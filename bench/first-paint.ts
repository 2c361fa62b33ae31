/**
 * The dashboard's first paint in Debian's Chromium (issue 29, "Measured"), against a real
 * instance serving the built dashboard (`npm run build:dashboard` first), as a person arrives:
 *
 * - the sign-in screen, cold (a new browser context: nothing cached) and warm (a reload): the
 *   bytes moved (Chromium's encoded sizes: what went over the wire, compressed or not, headers
 *   included) and how many requests; goal for cold ≤ 150 KB; the first contentful paint, and the
 *   time until the e-mail field shows;
 * - the signed-in home, cold and warm: bytes, first contentful paint, the time until its heading;
 * - a table's grid opened by its address, cold and warm (a SQLite table of 1,000 rows: the paint,
 *   not the database, is measured here; the 1,000,000-row PostgreSQL grid's first rows cold and
 *   warm are bench/grid.ts's "first grid page, full load"): bytes, first contentful paint, and the
 *   time until the first row's cells hold their values.
 *
 * Each figure is the median of BENCH_RUNS loads; the machine's load is printed with them, since
 * paint times move with it. Benches never assert: the table says MET or NOT MET.
 *
 *   npm run build:dashboard && node --no-node-snapshot --import tsx bench/first-paint.ts
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createApp } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { CHROMIUM_PATH, launchChromium } from '../test/browser/chromium.js';
import { setUpAdmin } from './lib/admin.js';
import { positiveInt, printMachine } from './lib/env.js';

const RUNS = positiveInt('BENCH_RUNS', 5);
const DIST = join(process.cwd(), 'dashboard', 'dist');
const SIGN_IN_GOAL_KB = 150;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Load {
  bytes: number;
  requests: number;
  fcp: number;
  ready: number;
}

/** What `ready` names: a CSS selector, and text its element must hold. */
interface Ready {
  selector: string;
  text?: string;
}

/**
 * When `ready` was first shown, in ms since the navigation started, read in the page at each
 * animation frame. Playwright's own wait polls at widening intervals (up to 500 ms apart), which
 * would add its polling delay to every figure.
 */
async function shownAt(page: Page, ready: Ready): Promise<number> {
  // A function, not a string (the dashboard's CSP refuses eval); no named function inside, so
  // the bundler adds no helper the page lacks.
  const handle = await page.waitForFunction(
    ({ selector, text }) => {
      for (const el of document.querySelectorAll(selector)) {
        const box = el.getBoundingClientRect();
        if (box.width > 0 && box.height > 0 && (el.textContent ?? '').includes(text)) return performance.now();
      }
      return false;
    },
    { selector: ready.selector, text: ready.text ?? '' },
    { polling: 'raf', timeout: 30_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** Loads `url` in `page` and waits for `ready` (a selector): bytes and requests over the wire, first contentful paint, ready time (ms since navigation start). */
async function load(page: Page, url: string, ready: Ready, reload = false): Promise<Load> {
  const sizes: Promise<number>[] = [];
  const onFinished = (req: import('playwright-core').Request) => {
    sizes.push(
      req.sizes().then(
        (s) => s.responseBodySize + s.responseHeadersSize,
        () => 0,
      ),
    );
  };
  page.on('requestfinished', onFinished);
  if (reload) await page.reload({ waitUntil: 'commit' });
  else await page.goto(url, { waitUntil: 'commit' });
  const readyAt = await shownAt(page, ready);
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  const fcp = (await page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN`)) as number;
  const all = await Promise.all(sizes);
  return { bytes: all.reduce((a, b) => a + b, 0), requests: all.length, fcp, ready: readyAt };
}

async function runs(browser: Browser, fn: (context: BrowserContext) => Promise<[Load, Load]>): Promise<{ cold: Load[]; warm: Load[] }> {
  const cold: Load[] = [];
  const warm: Load[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const [c, w] = await fn(context);
      // The first is thrown away: the server's own first answers (compression of each asset) are in it.
      if (run === 0) continue;
      cold.push(c);
      warm.push(w);
    } finally {
      await context.close();
    }
  }
  return { cold, warm };
}

function line(label: string, loads: Load[], extra = ''): string {
  const kb = median(loads.map((l) => l.bytes)) / 1024;
  return `${label.padEnd(22)} ${kb.toFixed(1).padStart(8)} KB ${String(median(loads.map((l) => l.requests))).padStart(4)} req  FCP ${median(
    loads.map((l) => l.fcp),
  )
    .toFixed(0)
    .padStart(5)} ms  ready ${median(loads.map((l) => l.ready))
    .toFixed(0)
    .padStart(5)} ms${extra}`;
}

/** A SQLite table of 1,000 rows, connected and introspected over the API: the grid's address. */
async function gridAddress(base: string, cookie: string, dir: string): Promise<string> {
  const file = join(dir, 'paint.db');
  const db = new Database(file);
  db.exec('create table item (id integer primary key, name text not null, qty integer, added_at timestamptz)');
  const insert = db.prepare('insert into item (name, qty, added_at) values (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 1000; i++) insert.run(`item ${i}`, i % 17, new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString());
  })();
  db.close();
  const headers = { origin: base, cookie, 'content-type': 'application/json' };
  const created = await fetch(`${base}/api/v1/connections`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Paint', dialect: 'sqlite', url: `sqlite:${file}` }),
  });
  if (created.status !== 201) throw new Error(`POST /connections answered ${created.status}: ${await created.text()}`);
  const id = ((await created.json()) as { data: { connection: { id: string } } }).data.connection.id;
  const introspected = await fetch(`${base}/api/v1/connections/${id}/introspect`, { method: 'POST', headers: { origin: base, cookie } });
  if (introspected.status >= 300) throw new Error(`introspect answered ${introspected.status}: ${await introspected.text()}`);
  return `${base}/connections/${id}/tables/item`;
}

async function main(): Promise<void> {
  printMachine();
  if (!existsSync(CHROMIUM_PATH)) return void console.log(`no ${CHROMIUM_PATH}: nothing measured`);
  if (!existsSync(join(DIST, 'index.html'))) return void console.log('no dashboard/dist: run `npm run build:dashboard` first');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // The service refuses a SQLite file inside its data directory.
  const sourceDir = mkdtempSync(join(tmpdir(), 'svc-bench-source-'));
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins, dashboardDir: DIST });
  const browser = await launchChromium();
  try {
    const base = await app.listen();
    const { name, value, cookie } = await setUpAdmin(base);
    const grid = await gridAddress(base, cookie, sourceDir);

    const signIn = await runs(browser, async (context) => {
      const page = await context.newPage();
      const cold = await load(page, `${base}/sign-in`, { selector: 'input[type="email"]' });
      const warm = await load(page, `${base}/sign-in`, { selector: 'input[type="email"]' }, true);
      return [cold, warm];
    });
    const home = await runs(browser, async (context) => {
      await context.addCookies([{ name, value, url: base }]);
      const page = await context.newPage();
      const cold = await load(page, `${base}/`, { selector: 'main h1' });
      const warm = await load(page, `${base}/`, { selector: 'main h1' }, true);
      return [cold, warm];
    });

    // The first row's first value cell drawn (aria-rowindex 1 is the header row).
    const firstRow: Ready = { selector: '[role="row"][aria-rowindex="2"] [data-column="name"]', text: 'item' };
    const gridLoads = await runs(browser, async (context) => {
      await context.addCookies([{ name, value, url: base }]);
      const page = await context.newPage();
      const cold = await load(page, grid, firstRow);
      const warm = await load(page, grid, firstRow, true);
      return [cold, warm];
    });

    const signInKb = median(signIn.cold.map((l) => l.bytes)) / 1024;
    console.log(`first paint, ${RUNS} runs each, median; load average ${loadavg()[0]!.toFixed(1)} at the end`);
    console.log(line('sign-in, cold', signIn.cold, `  | ${signInKb <= SIGN_IN_GOAL_KB ? 'MET' : 'NOT MET'} (goal ≤ ${SIGN_IN_GOAL_KB} KB)`));
    console.log(line('sign-in, warm', signIn.warm));
    console.log(line('signed-in home, cold', home.cold));
    console.log(line('signed-in home, warm', home.warm));
    console.log(line('grid, cold', gridLoads.cold, '  (ready: the first row drawn)'));
    console.log(line('grid, warm', gridLoads.warm));
  } finally {
    await browser.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sourceDir, { recursive: true, force: true });
  }
}

await main();
