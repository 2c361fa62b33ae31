import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { firstPartyPlugins } from '../../plugins/index.js';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { definePlugin, type PluginDefinition } from '../plugin/manifest.js';
import { publicKeyAudience } from '../../plugins/public-api/provides.js';
import { defineAudience } from './audience.js';
import { noBody, route, type RouteDefinition } from './route.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts the real app with one extra plugin; resolves to the refusal message or 'started'. */
async function start(plugin: PluginDefinition): Promise<{ outcome: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
  dirs.push(dataDir);
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent' });
  try {
    const app = await createApp({ config, plugins: [...firstPartyPlugins, plugin] });
    await app.close();
    return { outcome: 'started', dataDir };
  } catch (err) {
    return { outcome: (err as Error).message, dataDir };
  }
}

const ok = z.strictObject({ ok: z.boolean() });
const withRoute = (r: unknown) =>
  definePlugin({
    name: 'probe',
    version: '1.0.0',
    permissions: [{ name: 'probe.read', label: 'Probe', description: 'Probe' }],
    routes: [r as RouteDefinition],
  });

describe('the route contract: the server refuses to start', () => {
  it('starts with a well-formed route (control case)', async () => {
    const r = route({
      method: 'GET',
      url: '/probe/:id',
      summary: 'x',
      permission: 'probe.read',
      schema: { params: z.object({ id: z.string() }), response: { 200: ok } },
      handler: () => ({ ok: true }),
    });
    expect((await start(withRoute(r))).outcome).toBe('started');
  });

  it('without a permission or public: true', async () => {
    const res = await start(withRoute({ method: 'GET', url: '/probe', summary: 'x', schema: { response: { 200: ok } }, handler: () => ({ ok: true }) }));
    expect(res.outcome).toBe('route GET /probe of plugin probe: declares neither a permission nor public: true');
    // Refused before the meta store is opened: nothing was written.
    expect(existsSync(join(res.dataDir, 'meta.sqlite'))).toBe(false);
  });

  it('with a permission no plugin declares', async () => {
    const res = await start(
      withRoute({
        method: 'GET',
        url: '/probe',
        summary: 'x',
        permission: 'nobody.declares',
        schema: { response: { 200: ok } },
        handler: () => ({ ok: true }),
      }),
    );
    expect(res.outcome).toContain('uses permission nobody.declares, which no loaded plugin declares');
  });

  it('without a response schema', async () => {
    const res = await start(withRoute({ method: 'GET', url: '/probe', summary: 'x', public: true, schema: { response: {} }, handler: () => ({ ok: true }) }));
    expect(res.outcome).toContain('declares no response schema');
  });

  it('with a response that is not a zod schema', async () => {
    const res = await start(
      withRoute({ method: 'GET', url: '/probe', summary: 'x', public: true, schema: { response: { 200: { type: 'object' } } }, handler: () => ({ ok: true }) }),
    );
    expect(res.outcome).toMatch(/response/);
    expect(res.outcome).not.toBe('started');
  });

  it('without a body schema on a POST', async () => {
    const res = await start(
      withRoute({ method: 'POST', url: '/probe', summary: 'x', public: true, schema: { response: { 200: ok } }, handler: () => ({ ok: true }) }),
    );
    expect(res.outcome).toContain('is POST but declares no body schema');
  });

  it('without a params schema matching the path parameters', async () => {
    const missing = await start(
      withRoute({ method: 'GET', url: '/probe/:id', summary: 'x', public: true, schema: { response: { 200: ok } }, handler: () => ({ ok: true }) }),
    );
    expect(missing.outcome).toContain('has path parameters (id) but no params schema');
    const wrong = await start(
      withRoute({
        method: 'GET',
        url: '/probe/:id',
        summary: 'x',
        public: true,
        schema: { params: z.object({ key: z.string() }), response: { 200: ok } },
        handler: () => ({ ok: true }),
      }),
    );
    expect(wrong.outcome).toContain('do not match the path parameters');
  });

  it('with both a permission and public: true', async () => {
    const res = await start(
      withRoute({
        method: 'GET',
        url: '/probe',
        summary: 'x',
        public: true,
        permission: 'probe.read',
        schema: { response: { 200: ok } },
        handler: () => ({ ok: true }),
      }),
    );
    expect(res.outcome).toContain('declares both a permission and public: true');
  });

  it('with a route declared twice', async () => {
    const r = { method: 'POST', url: '/probe', summary: 'x', public: true, schema: { body: noBody, response: { 200: ok } }, handler: () => ({ ok: true }) };
    const res = await start(definePlugin({ name: 'probe', version: '1.0.0', routes: [r as unknown as RouteDefinition, r as unknown as RouteDefinition] }));
    expect(res.outcome).toContain('is declared twice');
  });

  it('on a dependency cycle between plugins', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
    dirs.push(dataDir);
    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent' });
    const a = definePlugin({ name: 'alpha', version: '1.0.0', requires: ['beta'] });
    const b = definePlugin({ name: 'beta', version: '1.0.0', requires: ['alpha'] });
    await expect(createApp({ config, plugins: [...firstPartyPlugins, a, b] })).rejects.toThrow('plugin dependency cycle: alpha -> beta -> alpha');
  });

  it('with an event kind whose permission no plugin declares', async () => {
    const res = await start(
      definePlugin({ name: 'probe', version: '1.0.0', events: { 'probe.happened': { schema: z.object({}), permission: 'nobody.declares' } } }),
    );
    expect(res.outcome).toBe('event probe.happened of plugin probe needs permission nobody.declares, which no loaded plugin declares');
  });

  it('on a malformed manifest', async () => {
    const res = await start({ name: 'Bad Name', version: '1' } as PluginDefinition);
    expect(res.outcome).toMatch(/^plugin Bad Name: manifest field name/);
  });
});

describe('audiences (K47): the server refuses to start', () => {
  const probe = (r: Record<string, unknown>, requires: string[] = ['public-api']) =>
    definePlugin({
      name: 'probe',
      version: '1.0.0',
      requires,
      routes: [{ method: 'GET', summary: 'x', schema: { response: { 200: ok } }, handler: () => ({ ok: true }), ...r } as unknown as RouteDefinition],
    });

  it('with an audience no loaded plugin provides', async () => {
    const nobody = defineAudience<null>({ name: 'nobody', provider: 'public-api', under: '/public/' });
    const res = await start(probe({ url: '/public/probe', audience: nobody }));
    expect(res.outcome).toBe('route GET /public/probe of plugin probe: declares audience nobody, which no loaded plugin provides');
  });

  it('with an audience of a plugin it does not require', async () => {
    const res = await start(probe({ url: '/public/probe', audience: publicKeyAudience }, []));
    expect(res.outcome).toBe('route GET /public/probe of plugin probe: declares audience public-key of plugin public-api without requiring it');
  });

  it('with an audience route outside the URL space the audience owns', async () => {
    const res = await start(probe({ url: '/probe', audience: publicKeyAudience }));
    expect(res.outcome).toBe('route GET /probe of plugin probe: declares audience public-key, whose routes live under /public/');
  });

  it('with a route in an audience’s URL space that declares none', async () => {
    const res = await start(probe({ url: '/public/probe', public: true }));
    expect(res.outcome).toBe('route GET /public/probe of plugin probe: is under /public/, which audience public-key owns, but declares no audience');
  });

  it('with an audience and a permission', async () => {
    const res = await start(probe({ url: '/public/probe', audience: publicKeyAudience, permission: 'probe.read' }));
    expect(res.outcome).toBe('route GET /public/probe of plugin probe: declares an audience and also a permission or public: true');
  });
});

describe('an audience route', () => {
  it('is gated by its audience alone: the public gate answers there, not on the plugin’s other routes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
    dirs.push(dataDir);
    const plugin = definePlugin({
      name: 'probe',
      version: '1.0.0',
      requires: ['public-api'],
      routes: [
        route({
          method: 'GET',
          url: '/public/probe',
          summary: 'x',
          audience: publicKeyAudience,
          schema: { response: { 200: ok } },
          // Typed by the audience: a public caller, with its key.
          handler: ({ caller }) => ({ ok: caller.key.id.length > 0 }),
        }),
        route({ method: 'GET', url: '/probe', summary: 'x', public: true, schema: { response: { 200: ok } }, handler: () => ({ ok: true }) }),
      ],
    });
    const answers = async (env: Record<string, string>) => {
      const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', ...env });
      const app = await createApp({ config, plugins: [...firstPartyPlugins, plugin] });
      try {
        const gated = await app.http.inject({ method: 'GET', url: '/api/v1/public/probe' });
        const open = await app.http.inject({ method: 'GET', url: '/api/v1/probe' });
        return { gated: [gated.statusCode, gated.json().error.code, 'requestId' in gated.json().error], open: open.statusCode };
      } finally {
        await app.close();
      }
    };
    // Not served without SVC_PUBLIC_API_ORIGINS: as a path with no route.
    expect(await answers({})).toEqual({ gated: [404, 'NOT_FOUND', true], open: 200 });
    // Served: the switch is off, and the public envelope carries no request id.
    expect(await answers({ SVC_PUBLIC_API_ORIGINS: 'https://shop.example' })).toEqual({ gated: [503, 'PUBLIC_API_DISABLED', false], open: 200 });
  });
});

describe('urlParams', () => {
  it('names a trailing wildcard (the rest of the path) `*`', async () => {
    const { urlParams } = await import('./check.js');
    expect(urlParams('/add-ons/:key/bundle/*')).toEqual(['key', '*']);
    expect(urlParams('/users/:id')).toEqual(['id']);
  });
});
