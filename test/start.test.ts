import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../plugins/imports/testing.js';
import { sharedStringsXml, sheetXml, WORKBOOK_PARTS, zipOf } from '../plugins/imports/zip-testing.js';
import { HttpClient } from './helpers/client.js';
import { ROOT } from './helpers/identity.js';

const NORMAL_XLSX = [
  ...WORKBOOK_PARTS,
  { name: 'xl/sharedStrings.xml', data: sharedStringsXml(['ID', 'Name', 'first']) },
  {
    name: 'xl/worksheets/sheet1.xml',
    data: sheetXml(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2"><v>1</v></c><c r="B2" t="s"><v>2</v></c></row>',
    ),
  },
];

const root = fileURLToPath(new URL('..', import.meta.url));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** `npm start`'s own command line (after its prestart built the dashboard and the server). */
function startCommand(): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts.start!.split(/\s+/);
  expect(words[0]).toBe('node');
  return words.slice(1);
}

describe('the start command (what `npm start` runs)', () => {
  // npm start's prestart builds the server; so does this file, once.
  beforeAll(() => execFileSync('npm', ['run', 'build:server', '--silent'], { cwd: root, stdio: 'pipe' }), 60_000);

  it('runs compiled JavaScript with source maps, no TypeScript loader', () => {
    const args = startCommand();
    expect(args).toContain('--enable-source-maps');
    // The idle collector (kernel/memory/idle-collector.ts, decisions K35) needs gc().
    expect(args).toContain('--expose-gc');
    expect(args.join(' ')).not.toMatch(/tsx|ts-node|\.ts\b/);
    const entry = args.find((a) => a.endsWith('.js'))!;
    expect(existsSync(join(root, entry))).toBe(true);
    const map = JSON.parse(readFileSync(join(root, `${entry}.map`), 'utf8')) as { sources: string[] };
    expect(map.sources.some((s) => s.endsWith('kernel/main.ts'))).toBe(true);
  });

  it("contains no module of the dev entry: the add-ons' dev allow-list cannot be turned on (AO40)", () => {
    const build = join(root, 'build', 'server');
    const sources = readdirSync(build, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.js.map'))
      .flatMap((f) => (JSON.parse(readFileSync(join(build, f), 'utf8')) as { sources: string[] }).sources);
    expect(sources.some((s) => s.endsWith('kernel/serve.ts'))).toBe(true);
    expect(sources.filter((s) => /(^|\/)scripts\/|dev-outbound\.ts$/.test(s))).toEqual([]);
  });

  it('serves the dashboard and a healthy API on an embedded SQLite store, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
    const port = await freePort();
    const child = spawn(process.execPath, startCommand(), {
      cwd: root,
      env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      let health: Response | null = null;
      for (let i = 0; i < 100 && !health; i++) {
        health = await fetch(`${base}/api/v1/healthz`).catch(() => null);
        if (!health) await new Promise((r) => setTimeout(r, 150));
      }
      expect(health, stderr).not.toBeNull();
      expect(health!.status).toBe(200);
      expect(await health!.json()).toMatchObject({ ok: true });
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      // An XLSX upload reads the file in a worker thread: the compiled server runs the worker's compiled entry.
      const admin = new HttpClient(base);
      expect((await admin.post('/api/v1/setup/super-admin', ROOT)).status).toBe(201);
      const upload = await uploadFile(base, admin, 'book.xlsx', zipOf(NORMAL_XLSX));
      expect(upload.status, upload.text).toBe(201);
      expect(upload.body.data.upload).toMatchObject({ format: 'xlsx', rowCount: 1, sampleRows: [{ ID: 1, Name: 'first' }] });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
