import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with node:http, which (unlike fetch) leaves the answer's bytes as they came. */
function raw(base: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('compression (issue 29): built files precompressed, JSON answers compressed when asked', () => {
  let inst: TestInstance;
  let cookie: string;
  let dir: string;
  const script = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
  const html = `<!doctype html><html lang="en"><head><title>Admin</title></head><body>${'<p>hi</p>'.repeat(200)}</body></html>`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compress-dist-'));
    mkdirSync(join(dir, 'assets'));
    for (const [name, text] of [
      ['index.html', html],
      ['assets/app-1.js', script],
    ] as const) {
      writeFileSync(join(dir, name), text);
      writeFileSync(join(dir, `${name}.br`), brotliCompressSync(text));
      writeFileSync(join(dir, `${name}.gz`), gzipSync(text));
    }
    const boot = await bootWithAdmin({ dashboardDir: dir });
    inst = boot.inst;
    cookie = `svc_session=${boot.admin.cookie('svc_session')}`;
  });
  afterAll(async () => {
    await inst?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the brotli or gzip copy of a built file as the browser accepts, the file itself otherwise', async () => {
    const br = await raw(inst.url, '/assets/app-1.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.body).toString()).toBe(script);

    const gz = await raw(inst.url, '/assets/app-1.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);

    const plain = await raw(inst.url, '/assets/app-1.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
  });

  it('sends index.html compressed for a deep link, with the document’s security headers', async () => {
    const res = await raw(inst.url, '/connections/abc', { 'accept-encoding': 'br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(res.body).toString()).toBe(html);
  });

  it('compresses a JSON answer of 1 KiB or more when asked, and leaves small ones and unasking clients alone', async () => {
    const asked = await raw(inst.url, '/api/v1/bootstrap', { 'accept-encoding': 'gzip', cookie });
    expect(asked.status).toBe(200);
    expect(asked.headers['content-encoding']).toBe('gzip');
    expect(asked.headers.vary).toMatch(/accept-encoding/i);
    const session = JSON.parse(gunzipSync(asked.body).toString()) as { data: { session: { permissions: string[] } } };
    expect(session.data.session.permissions).toContain('users.read');

    const br = await raw(inst.url, '/api/v1/bootstrap', { 'accept-encoding': 'br', cookie });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(session);

    const unasked = await raw(inst.url, '/api/v1/bootstrap', { cookie });
    expect(unasked.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(unasked.body.toString())).toEqual(session);

    const spec = await raw(inst.url, '/docs/openapi.json', { 'accept-encoding': 'br' });
    expect(spec.headers['content-encoding']).toBe('br');
    expect((JSON.parse(brotliDecompressSync(spec.body).toString()) as { openapi: string }).openapi).toMatch(/^3\./);

    const small = await raw(inst.url, '/api/v1/healthz', { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('never inflates a compressed request body (no decompression bomb): it is refused', async () => {
    const body = gzipSync(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(20) }));
    const res = await raw(inst.url, '/api/v1/auth/login', { 'content-type': 'application/json', 'content-encoding': 'gzip', origin: inst.url }, 'POST', body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
