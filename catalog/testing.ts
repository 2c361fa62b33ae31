/** Test helpers shared by the first-party apps' tests (not packed: only catalog/<app>/ folders are). */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { launchChromium } from '../test/browser/chromium.js';
import type { HttpClient } from '../test/helpers/client.js';
import type { TestInstance } from '../test/helpers/instance.js';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

export interface SurfaceHost {
  origin: string;
  close(): Promise<void>;
}

/**
 * A surface's files (`dir`, one folder of `surfaces/`) served as the instance will serve a
 * public-page surface (D28): the app key and the API base in each HTML file's `<meta name="svc-app">`, and a CSP
 * that allows only the page's own files and the instance's public API (so no inline script or
 * style slips in). `config` is read at each request, so the app key can be known after start.
 */
export async function surfaceHost(dir: string, config: () => { appKey: string; apiBase: string; api: string }): Promise<SurfaceHost> {
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0]!.replace(/^\/+/, '') || 'index.html';
    if (!/^[a-z-]+\.(html|js|css)$/.test(name)) {
      res.writeHead(404).end();
      return;
    }
    let body = readFileSync(join(dir, name), 'utf8');
    const c = config();
    if (name.endsWith('.html')) {
      const meta = `<meta name="svc-app" content='${JSON.stringify({ appKey: c.appKey, apiBase: c.apiBase })}' />`;
      body = body.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${meta}`);
    }
    // Sources are explicit, and files are CORS-readable, as the instance's bundle route has them (AO14): a
    // page framed with `sandbox` (no allow-same-origin) has an opaque origin, where 'self' matches nothing
    // and a module script is a cross-origin load.
    const self = `http://${req.headers.host}`;
    res.writeHead(200, {
      'content-type': TYPES[extname(name)]!,
      'content-security-policy': `default-src 'none'; script-src ${self}/; style-src ${self}/; img-src ${self}/ data:; connect-src ${c.api}; base-uri 'none'; form-action 'none'`,
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A first-party app from the built-in catalog, as an operator installs it: download, plan on the
 * connection, install with the plan's hash (and settings), public API on; answers the install's
 * add-on view, the plan, and the app key's secret.
 */
export async function installFromCatalog(
  admin: HttpClient,
  key: string,
  version: string,
  connectionId: string,
  settings?: Record<string, string | number | boolean>,
): Promise<{ addon: any; plan: any; appKey: string }> {
  const download = await admin.post('/api/v1/add-ons/download', { key, version });
  expect(download.status, download.text).toBe(201);
  const planned = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}&connectionId=${connectionId}`);
  expect(planned.status, planned.text).toBe(200);
  const plan = planned.body.data.plan;
  const installed = await admin.post('/api/v1/add-ons', { key, version, connectionId, planHash: plan.hash, ...(settings ? { settings } : {}) });
  expect(installed.status, installed.text).toBe(201);
  expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
  const revealed = await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`);
  expect(revealed.status, revealed.text).toBe(200);
  return { addon: installed.body.data.addon, plan, appKey: revealed.body.data.secret };
}

export interface MappedDomain {
  /** `http://<name>:<instance port>`: the page's own origin, listed in no SVC_PUBLIC_API_ORIGINS. */
  origin: string;
  /** A Chromium that resolves `name` to the instance (the caller closes it). */
  browser: Browser;
}

/**
 * `surface` (a public-page of `appKey`) served by the instance itself on the host name `name`
 * (D28, `PUT /surfaces/domains`, which replaces every earlier mapping), with a browser that
 * reaches the instance under that name as a visitor's would through DNS.
 */
export async function mappedDomain(inst: TestInstance, admin: HttpClient, opts: { name: string; appKey: string; surface: string }): Promise<MappedDomain> {
  const port = new URL(inst.url).port;
  const mapped = await admin.put('/api/v1/surfaces/domains', { domains: [{ host: `${opts.name}:${port}`, appKey: opts.appKey, surface: opts.surface }] });
  expect(mapped.status, mapped.text).toBe(200);
  const browser = await launchChromium([`--host-resolver-rules=MAP ${opts.name} 127.0.0.1`]);
  return { origin: `http://${opts.name}:${port}`, browser };
}
