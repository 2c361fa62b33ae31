import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import { packAddon } from '../../addons-sdk/src/cli/pack.js';
import { writePackage } from '../../addons-sdk/src/package/write.js';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import type { HttpClient, HttpResponse } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import type { PluginDefinition } from '../../kernel/api.js';
import { sourceFixture, type SourceFixture } from '../connections/testing.js';
import { createAddonsPlugin } from './manifest.js';

/** Writes an add-on folder (addon.json, server.ts, other files) and packs it with the SDK, as an author would. */
export async function packFixture(
  manifest: AddonManifestInput,
  server: string | null,
  files: Record<string, string> = {},
): Promise<{ file: string; bytes: Buffer; sha256: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'addon-src-'));
  writeFileSync(join(dir, 'addon.json'), JSON.stringify(manifest, null, 2));
  if (server !== null) writeFileSync(join(dir, 'server.ts'), server);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packed = await packAddon(dir, join(dir, 'out', `${manifest.key}-${manifest.version}.tgz`));
  return { file: packed.file, bytes: readFileSync(packed.file), sha256: packed.sha256 };
}

/**
 * A package whose server.js carries its source map beside it (`server.js.map`, v3 with
 * sourcesContent), bundled from `server.ts` with esbuild as pack bundles it, the map on.
 */
export async function packWithSourceMap(manifest: AddonManifestInput, server: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'addon-map-'));
  writeFileSync(join(dir, 'server.ts'), server);
  const out = await esbuild.build({
    entryPoints: [join(dir, 'server.ts')],
    absWorkingDir: dir,
    outfile: join(dir, 'server.js'),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    sourcemap: 'external',
    sourcesContent: true,
    logLevel: 'silent',
  });
  const file = (suffix: string) => Buffer.from(out.outputFiles.find((f) => f.path.endsWith(suffix))!.contents);
  return writePackage([
    { path: 'addon.json', data: Buffer.from(JSON.stringify(manifest)) },
    { path: 'server.js', data: file('server.js') },
    { path: 'server.js.map', data: file('server.js.map') },
  ]);
}

/** POST /add-ons/upload with the package as the one file part. */
export async function uploadPackage(baseUrl: string, client: HttpClient, bytes: Uint8Array, name = 'package.tgz') {
  const form = new FormData();
  form.append('file', new Blob([bytes as BlobPart], { type: 'application/gzip' }), name);
  const res = await fetch(`${baseUrl}/api/v1/add-ons/upload`, {
    method: 'POST',
    body: form,
    headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: baseUrl },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The tables of a SQLite file whose names start with `prefix` (an add-on's, `<key>__…`), in name order. */
export function sqliteTablesLike(file: string, prefix: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("select name from sqlite_master where type = 'table' and name like ? order by name").all(`${prefix}%`) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  } finally {
    db.close();
  }
}

/** A fake OAuth 2 provider on a loopback port: an authorize page and a token endpoint, with PKCE checked as a real one would. */
export interface FakeOAuthProvider {
  /** `GET` sends the browser straight back to `redirect_uri` with a fresh code and the state (no consent page). */
  authorizeUrl: string;
  tokenUrl: string;
  /** code → the code_challenge of the authorize request that made it. */
  codes: Map<string, string>;
  requests: Array<{ authorization: string | undefined; form: Record<string, string> }>;
  /** Refresh grants answer invalid_grant (a revoked grant). */
  refuseRefresh: boolean;
  close(): Promise<void>;
}

/**
 * The code grant answers `access[0]` with `refresh`; a refresh grant answers `access[1]`. The
 * client authenticates with HTTP Basic; an error's description carries the client secret, so a
 * test can prove the instance never echoes it.
 */
export async function fakeOAuthProvider(o: { clientId: string; clientSecret: string; access: [string, string]; refresh: string }): Promise<FakeOAuthProvider> {
  const codes = new Map<string, string>();
  const requests: FakeOAuthProvider['requests'] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      const code = `code-${randomBytes(12).toString('hex')}`;
      codes.set(code, url.searchParams.get('code_challenge') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      res.end();
      return;
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      requests.push({ authorization: req.headers.authorization, form });
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const basic = `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`;
      if (req.method !== 'POST' || url.pathname !== '/token' || req.headers.authorization !== basic) return answer(401, { error: 'invalid_client' });
      if (form.grant_type === 'authorization_code') {
        const challenge = codes.get(form.code ?? '');
        const verified =
          challenge !== undefined &&
          createHash('sha256')
            .update(form.code_verifier ?? '')
            .digest('base64url') === challenge;
        if (!verified) return answer(400, { error: 'invalid_grant', error_description: `no such code ${form.code} ${o.clientSecret}` });
        codes.delete(form.code!);
        return answer(200, { access_token: o.access[0], token_type: 'Bearer', expires_in: 3600, refresh_token: o.refresh, scope: 'read write' });
      }
      if (form.grant_type === 'refresh_token' && form.refresh_token === o.refresh && !provider.refuseRefresh)
        return answer(200, { access_token: o.access[1], token_type: 'Bearer', expires_in: 3600 });
      return answer(400, { error: 'unsupported_grant_type' });
    });
  });
  // No host: dual-stack, so `localhost` reaches it whether it resolves to ::1 or 127.0.0.1.
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  const provider: FakeOAuthProvider = {
    authorizeUrl: `http://localhost:${port}/authorize`,
    tokenUrl: `http://localhost:${port}/token`,
    codes,
    requests,
    refuseRefresh: false,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return provider;
}

/** An app with no tables and two surfaces that are not public pages (a dashboard page, an embed): what the surface routes refuse or place. */
export async function panelPackage(): Promise<Uint8Array> {
  const panel = await packFixture(
    {
      key: 'panel',
      name: 'Panel',
      version: '1.0.0',
      engine: '>=0.1.0',
      surfaces: [
        { name: 'page', kind: 'dashboard-page', title: 'Panel' },
        { name: 'badge', kind: 'embed', title: 'Badge', entry: 'badge.html' },
      ],
    },
    null,
    { 'surfaces/page/index.html': '<!doctype html><title>Panel</title>', 'surfaces/badge/badge.html': '<!doctype html><title>Badge</title>' },
  );
  return panel.bytes;
}

/**
 * startInstance's options for an add-ons plugin whose outbound requests of `use` (AddonsOptions)
 * reach loopback while `allowed()` holds: the tests' fake servers listen on 127.0.0.1.
 */
export function addonsReachingLoopback(use: 'catalog' | 'fetch', allowed: () => boolean = () => true): { replacePlugins: PluginDefinition[] } {
  return { replacePlugins: [createAddonsPlugin({ allowLoopback: (u) => u === use && allowed() })] };
}

/** An add-on with `ctx.db` and one table, `blobs` (an id and a text body): what the tests of large reads fill. */
export function blobsAddon(o: { key: string; name: string; memoryMb: number; actions: string[] }): AddonManifestInput {
  return {
    key: o.key,
    name: o.name,
    version: '1.0.0',
    engine: '>=0.1.0',
    capabilities: ['db'],
    limits: { memoryMb: o.memoryMb, cpuMs: 2000 },
    tables: [
      {
        name: 'blobs',
        primaryKey: ['id'],
        columns: [
          { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
          { name: 'body', type: 'text', nullable: false },
        ],
      },
    ],
    actions: o.actions,
  };
}

/** An instance with an admin and one add-on installed on a fresh source of its own. */
export interface AddonOnSource {
  inst: TestInstance;
  admin: HttpClient;
  source: SourceFixture;
  /** Calls one of the add-on's actions as the admin (a staff call of the public action route); the body typed as HttpClient's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test's response body, as HttpClient.post gives it
  action(name: string, input: unknown): Promise<HttpResponse<any>>;
  /** Closes the instance and removes the source. */
  close(): Promise<void>;
}

/**
 * Boots an instance with an admin, adds a fresh `dialect` source as a connection, and uploads and
 * installs the add-on (`manifest`, version 1.0.0, `server` as its server.ts) on it, as an
 * operator would. What was opened is closed again when a step fails.
 */
export async function addonOnSource(dialect: Parameters<typeof sourceFixture>[0], manifest: AddonManifestInput, server: string): Promise<AddonOnSource> {
  const { inst, admin } = await bootWithAdmin();
  let opened: SourceFixture | null = null;
  const close = async () => {
    await inst.close();
    await opened?.cleanup();
  };
  try {
    const source = (opened = await sourceFixture(dialect));
    const connection = await admin.post('/api/v1/connections', { name: 'Src', dialect, url: source.url });
    if (connection.status !== 201) throw new Error(`adding the source answered ${connection.status}: ${connection.text}`);
    const connectionId = connection.body.data.connection.id as string;
    const pkg = await packFixture(manifest, server);
    const upload = await uploadPackage(inst.url, admin, pkg.bytes);
    if (upload.status !== 201) throw new Error(`uploading ${manifest.key} answered ${upload.status}`);
    const plan = (await admin.get(`/api/v1/add-ons/${manifest.key}/plan?version=${manifest.version}&connectionId=${connectionId}`)).body.data.plan;
    const installed = await admin.post('/api/v1/add-ons', { key: manifest.key, version: manifest.version, connectionId, planHash: plan.hash });
    if (installed.status !== 201) throw new Error(`installing ${manifest.key} answered ${installed.status}: ${installed.text}`);
    return {
      inst,
      admin,
      source,
      action: (name, input) => admin.post(`/api/v1/public/apps/${manifest.key}/actions/${name}`, { input }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
