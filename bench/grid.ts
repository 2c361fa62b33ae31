/**
 * The grid (dashboard/src/areas/data) on a 1,000,000-row PostgreSQL table, in Debian's Chromium
 * against a real instance serving the built dashboard (`npm run build:dashboard` first):
 *
 * 1. initial JavaScript of the signed-in home: every script the page loaded, gzip-compressed
 *    here (level 9) whatever the server sent. Goal < 300 KB gzip.
 * 2. time to the first rendered grid page after navigation: from the moment the route changes
 *    (in-app navigation, the home already loaded) and from a full page load, until the first
 *    row's cells hold their values. Goal < 500 ms.
 * 3. a jump to row 900,000 and back to the top (the scrollbar set where it stands for that row),
 *    then 100 wheel steps of 30 rows' height: the time until the rows are shown, the requests made
 *    and the slowest of them (Chromium's timing, request start to response end). Goal: no
 *    request over 50 ms.
 * 4. scrolling (issue 29): the grid scrolled from the top at 100 px a frame (6,000 px/s at 60 fps)
 *    for BENCH_FRAMES frames, against a plain list of 2,000 rows of the same cells in the same
 *    browser scrolled the same way: main-thread CPU per frame (Chromium's TaskDuration, over CDP)
 *    and the ratio (goal ≤ 1.5×), frames that showed a blank (still loading) row among the
 *    visible ones (goal none), and the data requests per second of scrolling.
 *
 * Benches never assert: the table says MET or NOT MET.
 *
 *   node --no-node-snapshot --import tsx bench/grid.ts
 *   BENCH_ROWS=1000000 BENCH_RUNS=5 node --no-node-snapshot --import tsx bench/grid.ts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import type { Page, Request } from 'playwright-core';
import { createApp } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { CHROMIUM_PATH, launchChromium } from '../test/browser/chromium.js';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';
import { setUpAdmin } from './lib/admin.js';
import { positiveInt, printMachine } from './lib/env.js';

const ROWS = positiveInt('BENCH_ROWS', 1_000_000);
const RUNS = positiveInt('BENCH_RUNS', 5);
const FRAMES = positiveInt('BENCH_FRAMES', 300);
/** Scroll passes of part 4 (grid, plain list, grid, …), median. */
const REPEAT = positiveInt('BENCH_REPEAT', 3);
/** `BENCH_PARTS=4`: only the scroll (parts 1–3 skipped); default every part. */
const PARTS = new Set((process.env.BENCH_PARTS ?? '1,2,3,4').split(',').map((s) => s.trim()));
/**
 * `BENCH_PROFILE=1`: a CPU profile of the grid's scroll, its heaviest functions (self time) printed
 * after the table, then a traced pass of the grid and one of the plain list: the main thread's time
 * by kind of work, with how many times each ran. `BENCH_TRACE_FILE=<path>` also writes the grid's
 * trace there (Chromium's JSON, for a closer look: which nodes painted, what forced a layout).
 */
const PROFILE = process.env.BENCH_PROFILE === '1';
const DIST = join(process.cwd(), 'dashboard', 'dist');
/**
 * `BENCH_BEFORE_DIST=<dir>`: another build of the dashboard (a copy of dashboard/dist made before a
 * change) served by a second instance on the same table; part 4 then scrolls it too, in the same
 * passes (grid, grid before, plain list), so a change is measured against what it replaced in one run.
 */
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** Data API requests of the page while `fn` runs: how many, and the slowest (ms). */
async function watchRequests(page: Page, fn: () => Promise<void>): Promise<{ count: number; slowest: number; durations: number[] }> {
  const durations: number[] = [];
  const pending: Promise<void>[] = [];
  const onFinished = (req: Request) => {
    if (!req.url().includes('/api/v1/data/')) return;
    pending.push(
      (async () => {
        const timing = req.timing();
        durations.push(timing.responseEnd);
      })(),
    );
  };
  page.on('requestfinished', onFinished);
  try {
    await fn();
    await page.waitForTimeout(300);
  } finally {
    page.off('requestfinished', onFinished);
  }
  await Promise.all(pending);
  return { count: durations.length, slowest: durations.length ? Math.max(...durations) : 0, durations };
}

/** Resolves when the grid row at `index` (0-based) shows its name cell, answering the time it took in the page. */
function rowShown(page: Page, index: number): Promise<number> {
  // A string, not a function: tsx would wrap a named inner function in its __name helper, unknown in the page.
  return page.evaluate(`new Promise((resolve) => {
    const t0 = performance.now();
    const check = () => {
      const cell = document.querySelector('[role="row"][aria-rowindex="${index + 2}"] [data-column="name"]');
      if (cell && cell.textContent) resolve(performance.now() - t0);
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

/**
 * Resolves when the rows in view of the grid, the first of them at index `from` or further, are
 * all filled: the time it took in the page, and the first one's name.
 */
function rowsInViewShown(page: Page, from: number): Promise<[number, string]> {
  return page.evaluate(`new Promise((resolve) => {
    const t0 = performance.now();
    const check = () => {
      const grid = document.querySelector('[role="grid"]');
      const top = grid.querySelector('.data-head').getBoundingClientRect().bottom;
      const bottom = grid.getBoundingClientRect().bottom;
      const rows = [...grid.querySelectorAll('.data-body [role="row"]')].filter((r) => {
        const b = r.getBoundingClientRect();
        return b.bottom > top + 1 && b.top < bottom;
      });
      if (rows.length && Number(rows[0].getAttribute('aria-rowindex')) - 2 >= ${from} && rows.every((r) => r.getAttribute('aria-busy') !== 'true'))
        resolve([performance.now() - t0, rows[0].querySelector('[data-column="name"]').textContent]);
      else requestAnimationFrame(check);
    };
    check();
  })`);
}

/**
 * Scrolls the element matched by `selector` by 100 px every animation frame for `frames` frames:
 * main-thread CPU per frame (ms, CDP Performance TaskDuration), and the frames in which a row in
 * view was still blank (`aria-busy`).
 */
async function scrollFrames(
  page: Page,
  selector: string,
  frames: number,
  profile = false,
): Promise<{ cpuPerFrame: number; blankFrames: number; seconds: number; parts: Record<string, number>; heaviest: string[] }> {
  const cdp = await page.context().newCDPSession(page);
  // Thread ticks: the durations are the main thread's CPU time, not wall time (which a busy machine stretches).
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  if (profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const PARTS_OF = ['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration'] as const;
  const busy = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return Object.fromEntries(PARTS_OF.map((n) => [n, metrics.find((m) => m.name === n)?.value ?? 0])) as Record<(typeof PARTS_OF)[number], number>;
  };
  const before = await busy();
  const t0 = process.hrtime.bigint();
  const blankFrames = (await page.evaluate(`new Promise((resolve) => {
    const el = document.querySelector(${JSON.stringify(selector)});
    let frame = 0;
    let blank = 0;
    const step = () => {
      const box = el.getBoundingClientRect();
      const shown = [...el.querySelectorAll('[role="row"][aria-busy="true"]')].some((r) => {
        const b = r.getBoundingClientRect();
        return b.bottom > box.top && b.top < box.bottom;
      });
      if (shown) blank++;
      if (frame++ === ${frames}) return resolve(blank);
      el.scrollTop += 100;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  })`)) as number;
  const seconds = ms(t0) / 1000;
  const after = await busy();
  const perFrame = (n: (typeof PARTS_OF)[number]) => ((after[n] - before[n]) * 1000) / frames;
  const cpu = perFrame('TaskDuration');
  const parts = { script: perFrame('ScriptDuration'), style: perFrame('RecalcStyleDuration'), layout: perFrame('LayoutDuration') };
  const heaviest = profile ? heaviestFunctions((await cdp.send('Profiler.stop')).profile, frames) : [];
  await cdp.detach();
  return { cpuPerFrame: cpu, blankFrames, seconds, parts, heaviest };
}

/** The profile's functions by self time (ms a frame), heaviest first, with where they are (file:line). */
interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  /** The thread's CPU time of the event, µs (wall time `dur` stretches on a busy machine). */
  tdur?: number;
  args?: { name?: string };
}

/** The renderer main thread's events of a trace by name (CPU ms a frame, their own: nested events subtracted), heaviest first. */
function mainThreadWork(trace: Buffer, frames: number): string[] {
  const events = (JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return ['(no renderer main thread in the trace)'];
  const complete = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const cpu = (e: TraceEvent) => e.tdur ?? e.dur!;
  const own = new Map<string, number>();
  const count = new Map<string, number>();
  const stack: Array<{ end: number; name: string }> = [];
  for (const e of complete) {
    while (stack.length && stack[stack.length - 1]!.end <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) own.set(parent.name, (own.get(parent.name) ?? 0) - cpu(e));
    own.set(e.name, (own.get(e.name) ?? 0) + cpu(e));
    count.set(e.name, (count.get(e.name) ?? 0) + 1);
    stack.push({ end: e.ts + e.dur!, name: e.name });
  }
  return [...own]
    .filter(([, us]) => us > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([name, us]) => `${(us / 1000 / frames).toFixed(3).padStart(7)} ms  ${name} (${count.get(name)} times)`);
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }>;
  samples?: number[];
  timeDeltas?: number[];
}

function heaviestFunctions(profile: CpuProfile, frames: number): string[] {
  const selfUs = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0)));
  const byName = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    if (f.functionName === '(idle)') continue;
    const file = f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'} ${file}`.trim();
    byName.set(key, (byName.get(key) ?? 0) + (selfUs.get(node.id) ?? 0));
  }
  // And by script file (the page's bundles; the browser's own functions, getBoundingClientRect and the like, and the bench's step as "(native)").
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)' || f.functionName === '(garbage collector)') continue;
    const file = f.url
      ? f.url
          .split('/')
          .pop()!
          .replace(/-[\w-]{8}\.js$/, '.js')
      : '(native)';
    byFile.set(file, (byFile.get(file) ?? 0) + (selfUs.get(node.id) ?? 0));
  }
  const files = [...byFile]
    .sort((a, b) => b[1] - a[1])
    .map(([file, us]) => `${file} ${(us / 1000 / frames).toFixed(3)}`)
    .join(', ');
  return [
    ...[...byName]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([name, us]) => `${(us / 1000 / frames).toFixed(3).padStart(7)} ms  ${name}`),
    `by file, ms a frame: ${files}`,
  ];
}

/** A plain list of `rows` rows of the grid's cells (no framework, no virtualisation), in a box of the grid's height. */
function plainList(rows: number): string {
  const cells = (i: number) =>
    `<span>${i}</span><span>item ${i}</span><span>${((i % 1000) / 10).toFixed(2)}</span><span>${i % 2 === 0}</span><span>2026-01-01T00:00:00Z</span>`;
  const body = Array.from({ length: rows }, (_, i) => `<div role="row" class="r">${cells(i + 1)}</div>`).join('');
  return `<!doctype html><html><head><style>
    #list { height: 760px; overflow: auto; font: 14px system-ui; }
    .r { display: grid; grid-template-columns: 6rem 1fr 6rem 5rem 14rem; height: 34px; align-items: center; border-bottom: 1px solid #ddd; }
  </style></head><body><div id="list" role="grid">${body}</div></body></html>`;
}

async function main(): Promise<void> {
  printMachine();
  if (!existsSync(CHROMIUM_PATH)) return void console.log(`no ${CHROMIUM_PATH}: nothing measured`);
  if (!existsSync(join(DIST, 'index.html'))) return void console.log('no dashboard/dist: run `npm run build:dashboard` first');
  if (!(await databaseAvailable('postgres'))) return;
  const temp = await createTempDatabase('postgres');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const client = new pg.Client({ connectionString: temp.url });
  await client.connect();
  const apps: Array<Awaited<ReturnType<typeof createApp>>> = [];
  const browser = await launchChromium();
  try {
    process.stdout.write(`filling ${ROWS} rows… `);
    const fill = process.hrtime.bigint();
    await client.query(
      `create table items (id bigserial primary key, name text not null, price numeric(10,2) not null, active boolean not null, created timestamptz not null)`,
    );
    await client.query(
      `insert into items (name, price, active, created) select 'item ' || g, (g % 1000) / 10.0, g % 2 = 0, timestamptz '2026-01-01' + (g % 5000) * interval '1 minute' from generate_series(1, $1) g`,
      [ROWS],
    );
    await client.query('analyze items');
    process.stdout.write(`${(ms(fill) / 1000).toFixed(1)} s\n`);

    /** An instance serving `dist` over the table, signed in: its grid's path and the session cookie. */
    const serve = async (dist: string, dir: string) => {
      const config = loadConfig({ SVC_DATA_DIR: dir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
      const served = await createApp({ config, plugins: firstPartyPlugins, dashboardDir: dist });
      apps.push(served);
      const base = await served.listen();
      const origin = { origin: base, 'content-type': 'application/json' };
      const { name, value, cookie } = await setUpAdmin(base);
      const created = await fetch(`${base}/api/v1/connections`, {
        method: 'POST',
        headers: { ...origin, cookie },
        body: JSON.stringify({ name: 'bench', dialect: 'postgres', url: temp.url }),
      });
      const connection = ((await created.json()) as { data: { connection: { id: string } } }).data.connection;
      return { base, name, value, gridPath: `/connections/${connection.id}/tables/items` };
    };
    const { base, name, value, gridPath } = await serve(DIST, dataDir);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name, value, url: base }]);
    const page = await context.newPage();
    // The build before, in a browser context of its own (both instances are 127.0.0.1: their cookies would meet).
    let before: { base: string; gridPath: string; page: Page } | null = null;
    if (BEFORE_DIST && PARTS.has('4')) {
      mkdirSync(join(dataDir, 'before'));
      const b = await serve(BEFORE_DIST, join(dataDir, 'before'));
      const beforeContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await beforeContext.addCookies([{ name: b.name, value: b.value, url: b.base }]);
      before = { base: b.base, gridPath: b.gridPath, page: await beforeContext.newPage() };
    }

    const lines: Array<[string, string]> = [];
    // 1. The signed-in home's initial JavaScript.
    if (PARTS.has('1')) {
      const scripts = new Map<string, number>();
      page.on('response', async (res) => {
        if (res.request().resourceType() !== 'script') return;
        const body = await res.body().catch(() => null);
        if (body) scripts.set(new URL(res.url()).pathname, gzipSync(body, { level: 9 }).length);
      });
      await page.goto(base + '/', { waitUntil: 'networkidle' });
      await page.getByRole('heading', { level: 1 }).waitFor();
      const homeJs = [...scripts.values()].reduce((a, b) => a + b, 0);
      const homeFiles = scripts.size;
      page.removeAllListeners('response');
      lines.push(['initial JS of the home', `${(homeJs / 1024).toFixed(1)} KB gzip in ${homeFiles} files | ${verdict(homeJs < 300 * 1024)} (goal < 300 KB)`]);
    }

    // 2. First grid page: in-app navigation (history.pushState, as a link does), then a full load.
    if (PARTS.has('2')) {
      const inApp: number[] = [];
      const cold: number[] = [];
      for (let run = 0; run < RUNS + 1; run++) {
        await page.goto(base + '/', { waitUntil: 'networkidle' });
        const shown = rowShown(page, 0);
        await page.evaluate((path) => {
          history.pushState(null, '', path);
        }, gridPath);
        const t = await shown;
        const t0 = process.hrtime.bigint();
        await page.goto(base + gridPath, { waitUntil: 'commit' });
        await rowShown(page, 0);
        const c = ms(t0);
        if (run > 0) {
          inApp.push(t);
          cold.push(c);
        }
      }

      // 2b. The same first page in a new browser context each time (nothing cached: HTML, scripts, session).
      const coldLoads: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await fresh.addCookies([{ name, value, url: base }]);
        const p = await fresh.newPage();
        const t0 = process.hrtime.bigint();
        await p.goto(base + gridPath, { waitUntil: 'commit' });
        await rowShown(p, 0);
        coldLoads.push(ms(t0));
        await fresh.close();
      }

      lines.push(
        ['first grid page, in-app', `${median(inApp).toFixed(0)} ms | ${verdict(median(inApp) < 500)} (goal < 500 ms)`],
        [
          'first grid page, full load',
          `${median(cold).toFixed(0)} ms warm (the browser's cache holds the assets); ${median(coldLoads).toFixed(0)} ms cold (a new context)`,
        ],
      );
    }

    // 3. Jump to row 900,000 and back, then a wheel scroll.
    if (PARTS.has('3')) {
      await page.goto(base + gridPath, { waitUntil: 'networkidle' });
      await rowShown(page, 0);
      const target = Math.min(900_000, ROWS - 50);
      const rowHeight = await page.locator('[role="row"][aria-rowindex="2"]').evaluate((el) => el.getBoundingClientRect().height);
      let downMs = 0;
      let upMs = 0;
      let landed = '';
      const jump = await watchRequests(page, async () => {
        // Within a page's jump (past 15 million px the body scrolls in pages; rows-virtual.ts) of the target row.
        const shownDown = rowsInViewShown(page, target - 5_000);
        // Where the scrollbar stands for row `target` in proportion (what dragging it does).
        await page.locator('[role="grid"]').evaluate(
          (el, [row, rows, h]) => {
            const header = el.querySelector<HTMLElement>('.data-head')?.offsetHeight ?? 0;
            const avail = el.clientHeight - header;
            const virtualMax = rows * h - avail;
            el.scrollTop = Math.round(((row * h) / virtualMax) * (el.scrollHeight - el.clientHeight));
          },
          [target, ROWS, rowHeight] as const,
        );
        [downMs, landed] = await shownDown;
        const shownUp = rowShown(page, 0);
        await page.locator('[role="grid"]').evaluate((el) => {
          el.scrollTop = 0;
        });
        upMs = await shownUp;
      });
      const shownAt = await page.locator(`[role="row"][aria-rowindex="2"] [data-column="name"]`).textContent();
      let wheelMs = 0;
      let wheelTop = 0;
      const wheel = await watchRequests(page, async () => {
        await page.locator('[role="grid"]').hover();
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < 100; i++) {
          await page.mouse.wheel(0, 30 * rowHeight);
          await page.waitForTimeout(16);
        }
        // Wherever the wheel stopped (a wheel step is scaled too past 15 million px): every drawn row filled.
        // A function, not a string: the dashboard's CSP (script-src 'self') refuses a string evaluated in the page.
        await page.waitForFunction(() => document.querySelectorAll('[role="row"][aria-busy="true"]').length === 0, undefined, { polling: 'raf' });
        wheelTop = Number(await page.locator('[role="rowgroup"].data-body [role="row"]').first().getAttribute('aria-rowindex')) - 2;
        wheelMs = ms(t0);
      });
      const memory = await page.evaluate(() => document.querySelectorAll('[role="row"]').length);
      lines.push(
        ['jump to row 900,000', `${downMs.toFixed(0)} ms to show it ("${landed}"); back to the top ${upMs.toFixed(0)} ms (first row "${shownAt}")`],
        ['requests of the jump', `${jump.count}, slowest ${jump.slowest.toFixed(1)} ms | ${verdict(jump.slowest <= 50)} (goal none over 50 ms)`],
        [
          '100 wheel steps',
          `to row ${wheelTop}: ${wheelMs.toFixed(0)} ms, ${wheel.count} requests, slowest ${wheel.slowest.toFixed(1)} ms | ${verdict(wheel.slowest <= 50)}`,
        ],
        ['rows in the DOM', `${memory}`],
      );
    }

    // 4. Scrolling at 100 px a frame, the grid from its top against a plain list in the same browser.
    let heaviest: string[] = [];
    if (PARTS.has('4')) {
      // BENCH_REPEAT pairs, grid then plain list, their medians (the load of a shared machine drifts).
      const gridRuns: Array<{ cpuPerFrame: number; blankFrames: number; seconds: number; parts: Record<string, number>; requests: number }> = [];
      const plainRuns: Array<{ cpuPerFrame: number; parts: Record<string, number> }> = [];
      const beforeRuns: Array<{ cpuPerFrame: number; parts: Record<string, number> }> = [];
      for (let r = 0; r < REPEAT; r++) {
        if (before) {
          await before.page.goto(before.base + before.gridPath, { waitUntil: 'networkidle' });
          await rowShown(before.page, 0);
          beforeRuns.push(await scrollFrames(before.page, '[role="grid"]', FRAMES));
        }
        await page.goto(base + gridPath, { waitUntil: 'networkidle' });
        await rowShown(page, 0);
        if (process.env.BENCH_CSS) await page.addStyleTag({ content: process.env.BENCH_CSS });
        let run: { cpuPerFrame: number; blankFrames: number; seconds: number; parts: Record<string, number> } = {
          cpuPerFrame: 0,
          blankFrames: 0,
          seconds: 0,
          parts: {},
        };
        const requests = await watchRequests(page, async () => {
          run = await scrollFrames(page, '[role="grid"]', FRAMES);
        });
        gridRuns.push({ ...run, requests: requests.count });
        const plain = await context.newPage();
        await plain.setContent(plainList(2000));
        plainRuns.push(await scrollFrames(plain, '#list', FRAMES));
        await plain.close();
      }
      const gridScroll = gridRuns.sort((a, b) => a.cpuPerFrame - b.cpuPerFrame)[Math.floor(gridRuns.length / 2)]!;
      const scrollRequests = { count: gridScroll.requests };
      const plainScroll = plainRuns.sort((a, b) => a.cpuPerFrame - b.cpuPerFrame)[Math.floor(plainRuns.length / 2)]!;
      const scrollRatio = gridScroll.cpuPerFrame / plainScroll.cpuPerFrame;
      if (beforeRuns.length) {
        const b = beforeRuns.sort((x, y) => x.cpuPerFrame - y.cpuPerFrame)[Math.floor(beforeRuns.length / 2)]!;
        lines.push([
          'the build before (same run)',
          `grid ${b.cpuPerFrame.toFixed(2)} ms CPU a frame: ${(b.cpuPerFrame / plainScroll.cpuPerFrame).toFixed(2)}× the plain list (script ${b.parts.script!.toFixed(2)}, style ${b.parts.style!.toFixed(2)}, layout ${b.parts.layout!.toFixed(2)} ms); now/before ${(gridScroll.cpuPerFrame / b.cpuPerFrame).toFixed(2)}`,
        ]);
      }
      lines.push(
        [
          `scroll ${FRAMES} frames at 100 px`,
          `grid ${gridScroll.cpuPerFrame.toFixed(2)} ms CPU a frame (median of ${REPEAT}), plain list ${plainScroll.cpuPerFrame.toFixed(2)} ms: ${scrollRatio.toFixed(2)}× | ${verdict(scrollRatio <= 1.5)} (goal ≤ 1.5×)`,
        ],
        [
          'of which, a frame',
          `grid: script ${gridScroll.parts.script!.toFixed(2)}, style ${gridScroll.parts.style!.toFixed(2)}, layout ${gridScroll.parts.layout!.toFixed(2)} ms; plain list: script ${plainScroll.parts.script!.toFixed(2)}, style ${plainScroll.parts.style!.toFixed(2)}, layout ${plainScroll.parts.layout!.toFixed(2)} ms (the rest: paint, compositing, other tasks)`,
        ],
        [
          'blank rows while scrolling',
          `${gridScroll.blankFrames} of ${FRAMES} frames showed a loading row | ${verdict(gridScroll.blankFrames === 0)} (goal none); ${(scrollRequests.count / gridScroll.seconds).toFixed(1)} data requests a second (${scrollRequests.count} in ${gridScroll.seconds.toFixed(1)} s)`,
        ],
      );
      if (PROFILE) {
        // A second pass under the sampling profiler (which slows it: its figures are not the ones above).
        await page.goto(base + gridPath, { waitUntil: 'networkidle' });
        await rowShown(page, 0);
        heaviest = (await scrollFrames(page, '[role="grid"]', FRAMES, true)).heaviest;
        // And a third under Chromium's tracing: the main thread's time by kind of work (style, layout, paint, script…).
        await page.goto(base + gridPath, { waitUntil: 'networkidle' });
        await rowShown(page, 0);
        if (process.env.BENCH_CSS) await page.addStyleTag({ content: process.env.BENCH_CSS });
        await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
        await scrollFrames(page, '[role="grid"]', FRAMES);
        const trace = await browser.stopTracing();
        if (process.env.BENCH_TRACE_FILE) writeFileSync(process.env.BENCH_TRACE_FILE, trace);
        heaviest.push('', "the grid's scroll, main thread's time a frame by kind of work (traced pass):", ...mainThreadWork(trace, FRAMES));
        // The plain list traced the same way, to read the two side by side.
        const plain = await context.newPage();
        await plain.setContent(plainList(2000));
        await browser.startTracing(plain, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
        await scrollFrames(plain, '#list', FRAMES);
        heaviest.push('', "the plain list's scroll, the same (traced pass):", ...mainThreadWork(await browser.stopTracing(), FRAMES));
        await plain.close();
      }
    }

    console.log(`\nthe grid on ${ROWS} rows of PostgreSQL, ${RUNS} runs, median`);
    for (const [label, line] of lines) console.log(`${label.padEnd(28)} ${line}`);
    if (heaviest.length) console.log(`\nthe grid's scroll, self time a frame (profiled pass):\n${heaviest.join('\n')}`);
    await context.close();
  } finally {
    await browser.close();
    await client.end();
    for (const app of apps) await app.close();
    await temp.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
