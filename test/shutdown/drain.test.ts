import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RawConnection, refused, sleep, startServer, until, type ServerProcess } from './support.js';

const API = '/api/v1';

describe('a server process that receives SIGTERM drains before it exits (decisions K43)', () => {
  let server: ServerProcess | null = null;
  let dataDir = '';
  afterEach(() => {
    server?.child.kill('SIGKILL');
    server = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request in flight, refuses what arrives on open connections with the envelope, and exits 0', { timeout: 90_000 }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-drain-'));
    const release = join(dataDir, 'release');
    server = await startServer({ SVC_DATA_DIR: dataDir, SVC_SHUTDOWN_GRACE_MS: '30000', DRAIN_RELEASE_FILE: release });
    const s = server;

    // Separate connections, each with a request held in the handler until the test releases it.
    const reads = ['r0', 'r1', 'r2'].map((tag) => fetch(`${s.url}${API}/draintest/slow?ms=0&hold=1&tag=${tag}`));
    const writes = ['w0', 'w1', 'w2'].map((tag) =>
      fetch(`${s.url}${API}/draintest/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: `note-${tag}`, ms: 0, hold: true, tag }),
      }),
    );
    // Two kept-alive connections written by hand, each with a held request in flight.
    const keptRead = await RawConnection.open(s.port);
    keptRead.send('GET', `${API}/draintest/slow?ms=0&hold=1&tag=k`);
    const keptWrite = await RawConnection.open(s.port);
    keptWrite.send('POST', `${API}/draintest/notes`, { id: 'note-k', ms: 0, hold: true, tag: 'p' });
    await Promise.all(['r0', 'r1', 'r2', 'w0', 'w1', 'w2', 'k', 'p'].map((t) => s.started(t)));

    s.child.kill('SIGTERM');
    // The drain has begun once the listening socket is closed.
    await until(() => refused(s.port), 'new connections to be refused');

    // Requests that still arrive on connections the server holds open: a route, and readiness.
    keptRead.send('GET', `${API}/setup/state`);
    keptWrite.send('GET', `${API}/readyz`);
    // Time for them to reach the server before what they queue behind is released; the test
    // does not depend on how long they take to be answered.
    await sleep(1000);
    writeFileSync(release, '');

    for (const res of await Promise.all(reads)) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ waited: 0 });
    }
    for (const [i, res] of (await Promise.all(writes)).entries()) {
      // Committed before the wait: its client is told it succeeded.
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ id: `note-w${i}` });
    }

    const heldRead = await keptRead.next();
    expect(heldRead?.status).toBe(200);
    expect(JSON.parse(heldRead!.body)).toEqual({ waited: 0 });
    const refusedAnswer = await keptRead.next();
    expect(refusedAnswer, s.output()).not.toBeNull();
    expect(refusedAnswer!.status).toBe(503);
    expect(refusedAnswer!.headers['content-type']).toMatch(/^application\/json/);
    expect(refusedAnswer!.headers['retry-after']).toBe('1');
    expect(refusedAnswer!.headers.connection).toBe('close');
    const env = JSON.parse(refusedAnswer!.body) as { error: { code: string; message: string; requestId: string } };
    expect(env.error.code).toBe('SHUTTING_DOWN');
    expect(env.error.requestId).toEqual(expect.any(String));
    expect(await keptRead.next()).toBeNull();

    const heldWrite = await keptWrite.next();
    expect(heldWrite?.status).toBe(201);
    expect(JSON.parse(heldWrite!.body)).toEqual({ id: 'note-k' });
    const readiness = await keptWrite.next();
    expect(readiness, s.output()).not.toBeNull();
    expect(readiness!.status).toBe(503);
    expect(JSON.parse(readiness!.body)).toEqual({ ok: false, version: expect.any(String), checks: { meta: 'ok', server: 'draining' } });
    expect(readiness!.headers.connection).toBe('close');
    expect(await keptWrite.next()).toBeNull();

    // Well before the 30 s grace period: it exits once the last request is answered.
    const exit = await Promise.race([s.exited, sleep(20_000).then(() => null)]);
    expect(exit, s.output()).toEqual({ code: 0, signal: null });

    const db = new Database(join(dataDir, 'meta.sqlite'), { readonly: true });
    try {
      const ids = db.prepare('select id from draintest_notes order by id').all() as Array<{ id: string }>;
      expect(ids.map((r) => r.id)).toEqual(['note-k', 'note-w0', 'note-w1', 'note-w2']);
    } finally {
      db.close();
    }
  });

  it('cuts what is still open when the grace period ends, and still exits 0', { timeout: 60_000 }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-drain-'));
    server = await startServer({ SVC_DATA_DIR: dataDir, SVC_SHUTDOWN_GRACE_MS: '500', DRAIN_RELEASE_FILE: join(dataDir, 'never') });
    const s = server;
    const held = await RawConnection.open(s.port);
    held.send('GET', `${API}/draintest/slow?ms=0&hold=1&tag=forever`);
    await s.started('forever');
    s.child.kill('SIGTERM');
    const exit = await Promise.race([s.exited, sleep(30_000).then(() => null)]);
    expect(exit, s.output()).toEqual({ code: 0, signal: null });
    expect(await held.next()).toBeNull();
    expect(s.output()).toMatch(/grace period over/);
  });
});
