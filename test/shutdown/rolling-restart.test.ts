import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../helpers/databases.js';
import { freePort, sleep, startServer, until, type ServerProcess } from './support.js';

const available = await databaseAvailable('postgres');
const API = '/api/v1';

type Attempt = { kind: 'refused' } | { kind: 'answer'; status: number; body: string } | { kind: 'error'; code: string };

/**
 * One request on a new connection (no keep-alive: the test decides exactly when a request was
 * sent). `refused` means the connection was never established, so nothing was sent.
 */
function attempt(port: number, method: string, path: string, body?: unknown): Promise<Attempt> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ kind: 'answer', status: res.statusCode ?? 0, body: text }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ kind: 'error', code: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'error', code: err.code ?? err.message }),
    );
    req.end(payload);
  });
}

const isShuttingDown = (a: Attempt) => a.kind === 'answer' && a.status === 503 && a.body.includes('"SHUTTING_DOWN"');

describe.runIf(available)('a rolling restart of two replicas under load (decisions K43)', () => {
  let temp: TempDatabase | null = null;
  const servers: Array<ServerProcess | null> = [null, null];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const s of servers) s?.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s?.exited));
    await temp?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('loses no request and no acknowledged write', { timeout: 120_000 }, async () => {
    temp = await createTempDatabase('postgres');
    const secret = randomBytes(32).toString('hex');
    const ports = [await freePort(), await freePort()];
    const start = (i: number) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-rolling-'));
      dirs.push(dir);
      return startServer({ SVC_META_URL: temp!.url, SVC_DATA_DIR: dir, SVC_PORT: String(ports[i]), SVC_SECRET: secret, SVC_SHUTDOWN_GRACE_MS: '10000' });
    };
    // Together: the migration lock lets one migrate while the other waits.
    [servers[0], servers[1]] = await Promise.all([start(0), start(1)]);

    /**
     * The load balancer of this test: round robin over both replicas, and a request goes to the
     * other one only when nothing of it can have run: its connection was refused (nothing was
     * sent), or the server answered 503 SHUTTING_DOWN (it refuses before any handler runs).
     * Anything else (another 5xx, a reset after sending) is the request's final outcome.
     */
    let turn = 0;
    const retried = { refused: 0, shuttingDown: 0 };
    const send = async (method: string, path: string, body?: unknown): Promise<Attempt> => {
      for (let tries = 0; tries < 50; tries++) {
        const outcome = await attempt(ports[turn++ % 2]!, method, path, body);
        if (outcome.kind === 'refused') retried.refused++;
        else if (isShuttingDown(outcome)) retried.shuttingDown++;
        else return outcome;
        await sleep(10);
      }
      return { kind: 'error', code: 'no replica answered in 50 tries' };
    };

    const failures: string[] = [];
    const acknowledged: string[] = [];
    let done = false;
    let count = 0;
    const MAX = 3000;
    const worker = async (w: number) => {
      for (let i = 0; !done && count < MAX; i++) {
        const n = count++;
        if (n % 3 === 0) {
          const id = `n${w}-${i}`;
          const out = await send('POST', `${API}/draintest/notes`, { id, ms: (n % 5) * 40 });
          if (out.kind === 'answer' && out.status === 201) acknowledged.push(id);
          else failures.push(`write ${id}: ${JSON.stringify(out)}`);
        } else {
          const out = await send('GET', `${API}/draintest/slow?ms=${(n % 4) * 30}`);
          if (!(out.kind === 'answer' && out.status === 200)) failures.push(`read: ${JSON.stringify(out)}`);
        }
        // Bounded load: a restarting replica shares this machine's cores with it.
        await sleep(15);
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, (_, w) => worker(w)));
    const moreLoad = async (extra: number) => {
      const target = count + extra;
      await until(async () => count >= target || count >= MAX, `${extra} more requests`, 30_000);
    };

    await moreLoad(40);
    for (const i of [0, 1]) {
      const s = servers[i]!;
      s.child.kill('SIGTERM');
      expect(await s.exited, s.output()).toEqual({ code: 0, signal: null });
      servers[i] = await start(i);
      await moreLoad(40);
    }
    await moreLoad(Math.max(40, 300 - count));
    done = true;
    await load;

    expect(failures, failures.join('\n')).toEqual([]);
    // The restarts happened under the load: requests met a stopped replica and went to the other.
    expect(retried.refused).toBeGreaterThan(0);
    expect(count).toBeGreaterThanOrEqual(300);

    const client = new pg.Client({ connectionString: temp.url });
    await client.connect();
    try {
      const rows = await client.query<{ id: string }>('select id from draintest_notes');
      const stored = new Set(rows.rows.map((r) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      await client.end();
    }
    for (const [i, s] of servers.entries()) {
      s!.child.kill('SIGTERM');
      expect(await s!.exited).toEqual({ code: 0, signal: null });
      servers[i] = null;
    }
  });
});
