import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { addonsReachingLoopback, packFixture } from '../testing.js';

const manifest = (version: string): AddonManifestInput => ({
  key: 'remote-hello',
  name: 'Remote hello',
  version,
  engine: '>=0.1.0',
  description: 'Served by a remote catalog.',
  surfaces: [{ name: 'page', kind: 'dashboard-page', title: 'Hello' }],
});
const PAGE = { 'surfaces/page/index.html': '<h1>hello</h1>' };

/** A remote catalog on a loopback port: its index and tarballs, and a log of what was asked. */
interface RemoteCatalog {
  base: string;
  requests: string[];
  /** The same server at its IP literal (refused by the outbound rules whatever the test hook). */
  literal: string;
  files: Map<string, { status: number; body: Buffer; location?: string }>;
  close(): Promise<void>;
}

async function remoteCatalog(): Promise<RemoteCatalog> {
  const files = new Map<string, { status: number; body: Buffer; location?: string }>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const f = files.get(req.url ?? '');
    res.writeHead(f?.status ?? 404, {
      'content-type': req.url?.endsWith('.json') ? 'application/json' : 'application/gzip',
      ...(f?.location ? { location: f.location } : {}),
    });
    res.end(f?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // A name, not an IP literal: the catalog's fetches refuse literals (AO25); tests let loopback names through.
    base: `http://localhost:${port}`,
    literal: `http://127.0.0.1:${port}`,
    requests,
    files,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('remote catalog sources (D26)', () => {
  let remote: RemoteCatalog;
  let inst: TestInstance;
  let admin: HttpClient;
  let good: { bytes: Buffer; sha256: string };

  beforeAll(async () => {
    remote = await remoteCatalog();
    good = await packFixture(manifest('1.0.0'), null, PAGE);
    const genuine = await packFixture(manifest('1.0.1'), null, PAGE);
    // 1.0.1 is served tampered: the same size as the index says, one byte changed.
    const tampered = Buffer.from(genuine.bytes);
    tampered[tampered.length - 1] = tampered[tampered.length - 1]! ^ 0xff;
    // 1.0.2 is served larger than the index says.
    const grown = await packFixture(manifest('1.0.2'), null, PAGE);
    const index = {
      addons: [
        {
          key: 'remote-hello',
          name: 'Remote hello',
          description: 'Served by a remote catalog.',
          versions: [
            { version: '1.0.0', engine: '>=0.1.0', url: 'packages/remote-hello-1.0.0.tgz', sha256: good.sha256, size: good.bytes.length },
            { version: '1.0.1', engine: '>=0.1.0', url: `${remote.base}/packages/remote-hello-1.0.1.tgz`, sha256: genuine.sha256, size: genuine.bytes.length },
            { version: '1.0.2', engine: '>=0.1.0', url: 'packages/remote-hello-1.0.2.tgz', sha256: grown.sha256, size: grown.bytes.length - 10 },
          ],
        },
      ],
    };
    remote.files.set('/index.json', { status: 200, body: Buffer.from(JSON.stringify(index)) });
    remote.files.set('/packages/remote-hello-1.0.0.tgz', { status: 200, body: good.bytes });
    remote.files.set('/packages/remote-hello-1.0.1.tgz', { status: 200, body: tampered });
    remote.files.set('/packages/remote-hello-1.0.2.tgz', { status: 200, body: grown.bytes });
    remote.files.set('/broken.json', { status: 200, body: Buffer.from('{"addons": "nope"}') });
    ({ inst, admin } = await bootWithAdmin({ ...addonsReachingLoopback('catalog'), env: { SVC_NETWORK_FEATURES: 'true' } }));
  });
  afterAll(async () => {
    await inst?.close();
    await remote?.close();
  });

  const remoteEntry = async () => {
    const res = await admin.get('/api/v1/add-ons/catalog');
    expect(res.status, res.text).toBe(200);
    return res.body.data.addons.find((a: { key: string; source: string }) => a.key === 'remote-hello') ?? null;
  };
  const staged = async (): Promise<Array<{ key: string; version: string }>> => (await admin.get('/api/v1/add-ons')).body.data.staged;

  it('sets the sources and lists a remote index only after a refresh', async () => {
    const sources = [`${remote.base}/index.json`, `${remote.base}/missing.json`, `${remote.base}/broken.json`];
    const put = await admin.put('/api/v1/add-ons/catalog', { sources });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.sources).toEqual(sources);
    expect(await remoteEntry()).toBeNull();
    expect(remote.requests).toEqual([]);

    const refreshed = await admin.post('/api/v1/add-ons/catalog/refresh');
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.data.refresh).toEqual([
      { url: sources[0], ok: true },
      { url: sources[1], ok: false, error: expect.stringContaining('404') },
      { url: sources[2], ok: false, error: expect.stringContaining('not a catalog index') },
    ]);
    expect(Object.keys(refreshed.body.data.refreshedAt)).toEqual([sources[0]]);
    const entry = await remoteEntry();
    expect(entry).toMatchObject({ key: 'remote-hello', source: sources[0], installed: null, staged: [] });
    expect(entry.versions.map((v: { version: string; compatible: boolean }) => [v.version, v.compatible])).toEqual([
      ['1.0.2', true],
      ['1.0.1', true],
      ['1.0.0', true],
    ]);
    // Where the packages are is the instance's business, not the catalog view's.
    expect(JSON.stringify(entry)).not.toContain('/packages/');
  });

  it('downloads a version whose sha256 matches and stages it verified', async () => {
    const res = await admin.post('/api/v1/add-ons/download', { key: 'remote-hello', version: '1.0.0' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.staged).toMatchObject({
      key: 'remote-hello',
      version: '1.0.0',
      verified: true,
      sha256: good.sha256,
      size: good.bytes.length,
      source: `${remote.base}/index.json`,
    });
    expect(remote.requests).toContain('/packages/remote-hello-1.0.0.tgz');
    expect(await staged()).toEqual([expect.objectContaining({ key: 'remote-hello', version: '1.0.0', verified: true })]);
    const plan = await admin.get('/api/v1/add-ons/remote-hello/plan?version=1.0.0');
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.data.plan).toMatchObject({ verified: true });
  });

  it('refuses a package whose sha256 or size is not the index’s (400 ADDON_INTEGRITY) and stages nothing', async () => {
    const tampered = await admin.post('/api/v1/add-ons/download', { key: 'remote-hello', version: '1.0.1' });
    expect(tampered.status, tampered.text).toBe(400);
    expect(tampered.body.error.code).toBe('ADDON_INTEGRITY');
    expect(remote.requests).toContain('/packages/remote-hello-1.0.1.tgz');
    const grown = await admin.post('/api/v1/add-ons/download', { key: 'remote-hello', version: '1.0.2' });
    expect(grown.status, grown.text).toBe(400);
    expect(grown.body.error.code).toBe('ADDON_INTEGRITY');
    expect((await staged()).map((s) => s.version)).toEqual(['1.0.0']);
    expect((await admin.get('/api/v1/add-ons/remote-hello/plan?version=1.0.1')).body.error.code).toBe('ADDON_NOT_STAGED');
    const unknown = await admin.post('/api/v1/add-ons/download', { key: 'remote-hello', version: '9.9.9' });
    expect(unknown.status).toBe(404);
  });

  it('forgets a source’s index when the source is removed', async () => {
    const put = await admin.put('/api/v1/add-ons/catalog', { sources: [] });
    expect(put.status).toBe(200);
    expect(await remoteEntry()).toBeNull();
  });
});

describe('remote catalog fetches go through the outbound rules (AO25)', () => {
  /** Whether this instance's catalog requests may reach loopback now (each test says). */
  let loopback = false;
  let remote: RemoteCatalog;
  let inst: TestInstance;
  let admin: HttpClient;

  beforeAll(async () => {
    remote = await remoteCatalog();
    remote.files.set('/secret', { status: 200, body: Buffer.from('TOP-SECRET internal answer') });
    remote.files.set('/secret.json', { status: 200, body: Buffer.from('TOP-SECRET internal answer') });
    remote.files.set('/hop.json', { status: 302, body: Buffer.from(''), location: `${remote.literal}/secret` });
    remote.files.set('/loop.json', { status: 302, body: Buffer.from(''), location: '/loop.json' });
    const bytes = Buffer.from('not a real package');
    const index = {
      addons: [
        {
          key: 'storefront',
          name: 'Storefront',
          versions: [{ version: '9.9.9', engine: '>=0.1.0', url: 'sf.tgz', sha256: 'a'.repeat(64), size: bytes.length }],
        },
        { key: 'third-party', name: 'Third party', versions: [] },
      ],
    };
    remote.files.set('/builtin.json', { status: 200, body: Buffer.from(JSON.stringify(index)) });
    remote.files.set('/sf.tgz', { status: 200, body: bytes });
    ({ inst, admin } = await bootWithAdmin({ ...addonsReachingLoopback('catalog', () => loopback), env: { SVC_NETWORK_FEATURES: 'true' } }));
  });
  afterAll(async () => {
    await inst?.close();
    await remote?.close();
  });

  const refresh = async (sources: string[]) => {
    expect((await admin.put('/api/v1/add-ons/catalog', { sources })).status).toBe(200);
    const res = await admin.post('/api/v1/add-ons/catalog/refresh');
    expect(res.status, res.text).toBe(200);
    return res.body.data.refresh as Array<{ url: string; ok: boolean; error?: string; warning?: string }>;
  };

  it('refuses a loopback address (an IP literal always, a name resolving to one) and asks it nothing', async () => {
    loopback = false;
    const out = await refresh([`${remote.literal}/secret.json`, `${remote.base}/secret.json`]);
    expect(out).toEqual([
      { url: `${remote.literal}/secret.json`, ok: false, error: expect.stringContaining('ip_literal') },
      { url: `${remote.base}/secret.json`, ok: false, error: expect.stringContaining('private_address') },
    ]);
    expect(remote.requests).toEqual([]);
  });

  it('checks a redirect’s target again, and never echoes what a source answered', async () => {
    loopback = true;
    const out = await refresh([`${remote.base}/hop.json`, `${remote.base}/loop.json`, `${remote.base}/secret.json`]);
    expect(out[0]).toEqual({ url: `${remote.base}/hop.json`, ok: false, error: expect.stringContaining('after a redirect') });
    expect(out[1]).toEqual({ url: `${remote.base}/loop.json`, ok: false, error: expect.stringContaining('redirects') });
    expect(out[2]).toEqual({ url: `${remote.base}/secret.json`, ok: false, error: 'not a catalog index (not JSON)' });
    expect(remote.requests).not.toContain('/secret');
    expect(JSON.stringify(out)).not.toContain('TOP-SECRET');
  });

  it('leaves out a built-in add-on’s key offered by another source, says so, and will not download it', async () => {
    loopback = true;
    const out = await refresh([`${remote.base}/builtin.json`]);
    expect(out).toEqual([{ url: `${remote.base}/builtin.json`, ok: true, warning: expect.stringContaining('storefront') }]);
    const catalog = (await admin.get('/api/v1/add-ons/catalog')).body.data.addons as Array<{ key: string; source: string }>;
    expect(catalog.filter((a) => a.key === 'storefront').map((a) => a.source)).toEqual(['built-in']);
    expect(catalog.some((a) => a.key === 'third-party')).toBe(true);
    const res = await admin.post('/api/v1/add-ons/download', { key: 'storefront', version: '9.9.9' });
    expect(res.status, res.text).toBe(404);
    expect(remote.requests).not.toContain('/sf.tgz');
  });
});

describe('remote catalog with network features off', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let remote: RemoteCatalog;
  beforeAll(async () => {
    remote = await remoteCatalog();
    remote.files.set('/index.json', { status: 200, body: Buffer.from('{"addons":[]}') });
    ({ inst, admin } = await bootWithAdmin());
  });
  afterAll(async () => {
    await inst?.close();
    await remote?.close();
  });

  it('answers 409 NETWORK_FEATURES_DISABLED to a refresh and fetches nothing', async () => {
    expect((await admin.put('/api/v1/add-ons/catalog', { sources: [`${remote.base}/index.json`] })).status).toBe(200);
    const res = await admin.post('/api/v1/add-ons/catalog/refresh');
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('NETWORK_FEATURES_DISABLED');
    expect(remote.requests).toEqual([]);
    // The built-in catalog still answers, offline.
    const catalog = await admin.get('/api/v1/add-ons/catalog');
    expect(catalog.status).toBe(200);
    expect(catalog.body.data.addons.some((a: { source: string }) => a.source === 'built-in')).toBe(true);
  });
});
