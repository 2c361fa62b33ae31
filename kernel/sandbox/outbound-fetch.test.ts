import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { hostAllowed, isPublicAddress, outboundFetch, outboundHosts, type OutboundOptions } from './outbound-fetch.js';

let server: Server;
let port: number;
const hang = new Set<import('node:http').ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') return res.end(Buffer.alloc(64 * 1024, 97));
    if (req.url === '/hang') return void hang.add(res);
    if (req.url === '/redirect') return res.writeHead(302, { location: 'http://127.0.0.1/' }).end();
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, x: req.headers['x-test'] ?? null, body })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of hang) res.destroy();
  await new Promise((r) => server.close(r));
});

/** A name that exists nowhere but the test's own resolver, which says loopback. */
const viaTestResolver = (over: Partial<OutboundOptions> = {}): OutboundOptions => ({
  allowedHosts: ['svc.test', '*.svc.test'],
  networkFeatures: true,
  allowLoopbackForTests: true,
  resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  ...over,
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; params: Record<string, unknown> | undefined }> {
  const err = await refused(p);
  return { code: err.code, params: err.params };
}

async function refused(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('not refused');
}

describe('outboundFetch', () => {
  it('reaches an allowed host at the address it checked (pinned: the name resolves nowhere else)', async () => {
    const res = await outboundFetch(
      `http://svc.test:${port}/path?q=1`,
      { method: 'post', headers: { 'x-test': 'yes', host: 'evil.example' }, body: 'hello' },
      viaTestResolver(),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ method: 'POST', url: '/path?q=1', host: `svc.test:${port}`, x: 'yes', body: 'hello' });
    // A wildcard covers names under it; redirects come back as they are.
    const redirect = await outboundFetch(`http://api.svc.test:${port}/redirect`, undefined, viaTestResolver());
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('http://127.0.0.1/');
  });

  it('refuses loopback by default: IP literals, and names that resolve there', async () => {
    const plain: OutboundOptions = { allowedHosts: ['localhost', 'svc.test'], networkFeatures: true };
    expect(await refusal(outboundFetch(`http://127.0.0.1:${port}/`, undefined, { ...plain, allowedHosts: ['127.0.0.1'] }))).toEqual({
      code: 'ADDON_OUTBOUND_REFUSED',
      params: { reason: 'ip_literal', host: '127.0.0.1' },
    });
    expect((await refusal(outboundFetch(`http://[::1]:${port}/`, undefined, plain))).params?.reason).toBe('ip_literal');
    expect((await refusal(outboundFetch(`http://2130706433:${port}/`, undefined, plain))).params?.reason).toBe('ip_literal');
    expect((await refusal(outboundFetch(`http://0x7f.1:${port}/`, undefined, plain))).params?.reason).toBe('ip_literal');
    expect(await refusal(outboundFetch(`http://localhost:${port}/`, undefined, plain))).toEqual({
      code: 'ADDON_OUTBOUND_REFUSED',
      params: { reason: 'private_address', host: 'localhost', address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) },
    });
    // Every address of the answer is checked, not only the first.
    const mixed = {
      ...plain,
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ],
    };
    expect((await refusal(outboundFetch(`http://svc.test/`, undefined, mixed))).params?.reason).toBe('private_address');
    // The test override opens loopback only, never the private ranges.
    const privateOnly = viaTestResolver({ resolve: async () => [{ address: '192.168.1.10', family: 4 }] });
    expect((await refusal(outboundFetch(`http://svc.test/`, undefined, privateOnly))).params?.reason).toBe('private_address');
  });

  it("says in the error's message which host was refused and why (the add-on reads it), without the address a name resolved to", async () => {
    const plain: OutboundOptions = { allowedHosts: ['svc.test'], networkFeatures: true };
    expect((await refused(outboundFetch('http://10.0.0.5/x', undefined, plain))).message).toBe('outbound fetch to 10.0.0.5 refused: private address');
    expect((await refused(outboundFetch('http://93.184.216.34/x', undefined, plain))).message).toBe(
      'outbound fetch to 93.184.216.34 refused: an IP address, not a host name (outbound lists host names)',
    );
    expect((await refused(outboundFetch('https://evil.example/x', undefined, plain))).message).toBe(
      "outbound fetch to evil.example refused: host not in the add-on's allow-list (outbound in addon.json)",
    );
    const internal = await refused(outboundFetch('http://svc.test/', undefined, { ...plain, resolve: async () => [{ address: '10.1.2.3', family: 4 }] }));
    expect(internal.message).toBe('outbound fetch to svc.test refused: private address');
    expect(internal.params).toEqual({ reason: 'private_address', host: 'svc.test', address: '10.1.2.3' });
    expect((await refused(outboundFetch(`http://svc.test:${port}/hang`, undefined, viaTestResolver({ timeoutMs: 100 })))).message).toBe(
      'outbound fetch to svc.test failed: no answer in time',
    );
  });

  it('refuses hosts not listed, other schemes, and everything while network features are off', async () => {
    expect((await refusal(outboundFetch(`http://other.test:${port}/`, undefined, viaTestResolver()))).params?.reason).toBe('host_not_listed');
    expect((await refusal(outboundFetch(`http://svc.test.evil.example/`, undefined, viaTestResolver()))).params?.reason).toBe('host_not_listed');
    expect((await refusal(outboundFetch(`ftp://svc.test/`, undefined, viaTestResolver()))).params?.reason).toBe('scheme');
    expect((await refusal(outboundFetch(`http://user:pw@svc.test/`, undefined, viaTestResolver()))).params?.reason).toBe('credentials_in_url');
    expect((await refusal(outboundFetch(`http://svc.test:${port}/`, { method: 'CONNECT' }, viaTestResolver()))).params?.reason).toBe('method');
    expect((await refusal(outboundFetch(`http://svc.test:${port}/`, undefined, viaTestResolver({ networkFeatures: false })))).code).toBe(
      'NETWORK_FEATURES_DISABLED',
    );
  });

  it('caps the response body and the time', async () => {
    expect(await refusal(outboundFetch(`http://svc.test:${port}/big`, undefined, viaTestResolver({ maxBodyBytes: 1024 })))).toEqual({
      code: 'ADDON_FETCH_FAILED',
      params: { reason: 'response_too_large', host: 'svc.test', max: 1024 },
    });
    expect((await outboundFetch(`http://svc.test:${port}/big`, undefined, viaTestResolver())).body).toHaveLength(64 * 1024);
    expect(await refusal(outboundFetch(`http://svc.test:${port}/hang`, undefined, viaTestResolver({ timeoutMs: 200 })))).toEqual({
      code: 'ADDON_FETCH_FAILED',
      params: { reason: 'timeout', host: 'svc.test', timeoutMs: 200 },
    });
  });
});

describe('outboundFetch with dev origins (svc-addon dev --allow-outbound, AO40)', () => {
  /** A dev instance's options: nothing listed in outbound, no test switch, one origin allowed. */
  const dev = (origins: string[], over: Partial<OutboundOptions> = {}): OutboundOptions => ({
    allowedHosts: [],
    networkFeatures: true,
    devOrigins: origins,
    ...over,
  });

  it('reaches an allowed origin, an IP literal on loopback or a name that resolves there, with no outbound entry', async () => {
    const literal = await outboundFetch(`http://127.0.0.1:${port}/mock?x=1`, { method: 'POST', body: 'hi' }, dev([`http://127.0.0.1:${port}`]));
    expect(literal.status).toBe(200);
    expect(JSON.parse(literal.body)).toMatchObject({ method: 'POST', url: '/mock?x=1', host: `127.0.0.1:${port}`, body: 'hi' });
    const named = await outboundFetch(
      `http://mock.test:${port}/named`,
      undefined,
      dev([`http://mock.test:${port}`], { resolve: async () => [{ address: '127.0.0.1', family: 4 }] }),
    );
    expect(JSON.parse(named.body)).toMatchObject({ url: '/named', host: `mock.test:${port}` });
  });

  it('refuses the same host on another port or scheme, and any loopback not listed, naming host and reason', async () => {
    const origins = [`http://127.0.0.1:${port}`];
    const other = await refused(outboundFetch(`http://127.0.0.1:${port + 1}/`, undefined, dev(origins)));
    expect(other.message).toBe('outbound fetch to 127.0.0.1 refused: private address');
    expect(other.params).toEqual({ reason: 'ip_literal', host: '127.0.0.1' });
    expect((await refusal(outboundFetch(`https://127.0.0.1:${port}/`, undefined, dev(origins)))).params?.reason).toBe('ip_literal');
    expect((await refusal(outboundFetch(`http://127.0.0.2:${port}/`, undefined, dev(origins)))).params?.reason).toBe('ip_literal');
    expect((await refusal(outboundFetch(`http://[::1]:${port}/`, undefined, dev(origins)))).params?.reason).toBe('ip_literal');
    // A name that resolves to loopback: not listed, then listed but private.
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    expect((await refused(outboundFetch(`http://localhost:${port}/`, undefined, dev(origins, { resolve })))).message).toBe(
      "outbound fetch to localhost refused: host not in the add-on's allow-list (outbound in addon.json)",
    );
    expect(
      (await refusal(outboundFetch(`http://mock.test:${port + 1}/`, undefined, dev([`http://mock.test:${port}`], { allowedHosts: ['mock.test'], resolve }))))
        .params,
    ).toEqual({ reason: 'private_address', host: 'mock.test', address: '127.0.0.1' });
    // Network features off: nothing, an allowed origin included.
    expect((await refused(outboundFetch(`http://127.0.0.1:${port}/`, undefined, dev(origins, { networkFeatures: false })))).code).toBe(
      'NETWORK_FEATURES_DISABLED',
    );
  });
});

describe('address and host checks', () => {
  it('tells public addresses from the rest', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect({ a, ok: isPublicAddress(a) }).toEqual({ a, ok: true });
    for (const a of [
      '127.0.0.1',
      '127.5.5.5',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'fd00::1',
      'fe80::1',
      'ff02::1',
      'not-an-ip',
    ])
      expect({ a, ok: isPublicAddress(a) }).toEqual({ a, ok: false });
    expect(isPublicAddress('127.0.0.1', true)).toBe(true);
    expect(isPublicAddress('::1', true)).toBe(true);
    expect(isPublicAddress('10.0.0.1', true)).toBe(false);
  });

  it('matches exact names and wildcards', () => {
    expect(hostAllowed('api.example.com', ['api.example.com'])).toBe(true);
    expect(hostAllowed('API.Example.com.', ['api.example.com'])).toBe(true);
    expect(hostAllowed('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('badexample.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('example.com.evil.test', ['example.com'])).toBe(false);
  });
});

describe('outboundHosts', () => {
  it('adds the host of a connected URL field for each connect:<field> entry, and nothing else', () => {
    const entries = ['api.example.com', 'connect:webhookUrl'];
    expect(outboundHosts(entries, null)).toEqual(['api.example.com']);
    expect(outboundHosts(entries, { webhookUrl: 'https://Hooks.Example.org:8443/in?x=1' })).toEqual(['api.example.com', 'hooks.example.org']);
    expect(outboundHosts(entries, { other: 'https://x.example.org/' })).toEqual(['api.example.com']);
    for (const bad of ['not a url', 'ftp://files.example.org/', 'http://127.0.0.1/', 'http://[::1]/', 'mailto:a@b.example'])
      expect(outboundHosts(entries, { webhookUrl: bad }), bad).toEqual(['api.example.com']);
  });

  it('a connected host still goes through every rule of outboundFetch', async () => {
    const allowedHosts = outboundHosts(['connect:webhookUrl'], { webhookUrl: `http://hook.svc.test:${port}/in` });
    const res = await outboundFetch(`http://hook.svc.test:${port}/in`, { method: 'POST', body: 'x' }, viaTestResolver({ allowedHosts }));
    expect(JSON.parse(res.body)).toMatchObject({ method: 'POST', url: '/in', body: 'x' });
    expect((await refusal(outboundFetch(`http://other.svc.test:${port}/`, undefined, viaTestResolver({ allowedHosts })))).params?.reason).toBe(
      'host_not_listed',
    );
    expect(
      (await refusal(outboundFetch(`http://hook.svc.test:${port}/in`, undefined, viaTestResolver({ allowedHosts, allowLoopbackForTests: false })))).params
        ?.reason,
    ).toBe('private_address');
    expect((await refusal(outboundFetch(`http://hook.svc.test:${port}/in`, undefined, viaTestResolver({ allowedHosts, networkFeatures: false })))).code).toBe(
      'NETWORK_FEATURES_DISABLED',
    );
  });
});
