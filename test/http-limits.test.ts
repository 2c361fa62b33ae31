/**
 * Slow clients cannot hold the server: headers and whole requests have deadlines (408 in the
 * error envelope where nothing was answered yet), and connections are capped in all and per
 * address. Everyone else keeps being served while it happens.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from './helpers/instance.js';

const HEADERS_MS = 600;
const REQUEST_MS = 1500;

/** A raw socket to the instance; `lines` collects what the server wrote, `closed` resolves when it hung up. */
function rawSocket(url: string): Promise<{ socket: net.Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    const started = Date.now();
    const closed = new Promise<number>((res) => socket.on('close', () => res(Date.now() - started)));
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes one byte of `text` every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  return () => clearInterval(timer);
}

describe('request deadlines', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ env: { SVC_HEADERS_TIMEOUT_MS: String(HEADERS_MS), SVC_REQUEST_TIMEOUT_MS: String(REQUEST_MS) } });
  });
  afterAll(async () => inst?.close());

  it('answers 408 REQUEST_TIMEOUT in the envelope and hangs up on headers trickled one byte at a time', async () => {
    const { socket, received, closed } = await rawSocket(inst.url);
    const stop = trickle(socket, `GET /api/v1/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`, 100);
    const after = await closed;
    stop();
    expect(after).toBeLessThan(HEADERS_MS + 3000);
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(received().split('\r\n\r\n')[1]!);
    expect(body).toEqual({ error: { code: 'REQUEST_TIMEOUT', message: expect.any(String), requestId: expect.any(String) } });
  });

  it('hangs up on a body trickled past the request deadline, and nothing of it reaches a handler', async () => {
    const client = inst.client();
    const { socket, closed, received } = await rawSocket(inst.url);
    const body = JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' });
    socket.write(
      `POST /api/v1/setup/super-admin HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${inst.url}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const stop = trickle(socket, body, 200);
    const after = await closed;
    stop();
    expect(after).toBeLessThan(REQUEST_MS + 3000);
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(received().split('\r\n\r\n')[1]!).error.code).toBe('REQUEST_TIMEOUT');
    expect((await client.get('/api/v1/setup/state')).body.data.open).toBe(true);
  });

  it('answers 431 HEADERS_TOO_LARGE in the envelope for headers beyond the limit', async () => {
    const { socket, received, closed } = await rawSocket(inst.url);
    socket.write(`GET /api/v1/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(received().split('\r\n\r\n')[1]!).error.code).toBe('HEADERS_TOO_LARGE');
  });

  it('keeps serving others while slow clients wait for their deadline', async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => rawSocket(inst.url)));
    const stops = slow.map(({ socket }) => trickle(socket, 'GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\nX-A: ' + 'a'.repeat(100), 50));
    const client = inst.client();
    for (let i = 0; i < 5; i++) expect((await client.get('/api/v1/healthz')).status).toBe(200);
    await Promise.all(slow.map((s) => s.closed));
    stops.forEach((s) => s());
  });

  it('lets a normal request with a body through', async () => {
    const res = await inst.client().post('/api/v1/auth/login', { email: 'nobody@example.com', password: 'wrong-password' });
    expect(res.status).toBe(401);
  });
});

describe.each([
  ['per address', { SVC_MAX_CONNECTIONS_PER_ADDRESS: '5' }],
  ['in all', { SVC_MAX_CONNECTIONS: '5' }],
])('connection caps %s', (_label, env) => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ env: { ...env, SVC_HEADERS_TIMEOUT_MS: '5000' } });
  });
  afterAll(async () => inst?.close());

  it('hangs up on connections of one address beyond its cap, and takes them again once some close', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => rawSocket(inst.url)));
    const extra = await rawSocket(inst.url);
    const dropped = await Promise.race([extra.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 2000))]);
    expect(dropped).toBe(true);
    expect(extra.received()).toBe('');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await new Promise((r) => setTimeout(r, 50));
    const res = await inst.client().get('/api/v1/healthz');
    expect(res.status).toBe(200);
  });
});
