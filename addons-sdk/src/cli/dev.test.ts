import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DevError, findInstance, startDev, type DevSession } from './dev.js';
import { initAddon } from './init.js';

const repo = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Signs in with the credentials dev saved and lists the installed add-ons. */
async function installedAddons(session: DevSession): Promise<Array<{ key: string; name: string; version: string }>> {
  const saved = JSON.parse(readFileSync(join(session.devDir, 'credentials.json'), 'utf8')) as { email: string; password: string };
  const login = await fetch(`${session.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: session.url },
    body: JSON.stringify(saved),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('svc_session='))!
    .split(';')[0]!;
  const res = await fetch(`${session.url}/api/v1/add-ons`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { addons: Array<{ key: string; name: string; version: string }> } }).data.addons;
}

function columns(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name);
  } finally {
    db.close();
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('svc-addon dev', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-addon-dev-'));
  let session: DevSession | null = null;
  afterAll(async () => {
    await session?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('finds the instance from --instance, SVC_ADMIN_DIR or by walking up', async () => {
    expect(await findInstance(join(repo, 'addons-sdk'), undefined, {})).toBe(repo);
    expect(await findInstance(root, undefined, { SVC_ADMIN_DIR: repo })).toBe(repo);
    // From a folder outside the repo, the SDK's own location finds it.
    expect(await findInstance(root, undefined, {})).toBe(repo);
    await expect(findInstance(root, root, {})).rejects.toBeInstanceOf(DevError);
  });

  it('refuses a port already in use before starting anything', async () => {
    const dir = join(root, 'busy-port');
    await initAddon(dir);
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const port = (server.address() as AddressInfo).port;
      await expect(startDev({ dir, port, instance: repo, env: {}, out: () => undefined, err: () => undefined })).rejects.toThrow(
        `Port ${port} of 127.0.0.1 is in use`,
      );
      expect(existsSync(join(dir, '.svc-dev', 'instance.log'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it('installs the add-on on a fresh instance, reinstalls it on change, keeps the last good version, and stops', async () => {
    const dir = join(root, 'dev-notes');
    await initAddon(dir);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toContain('.svc-dev/');
    const lines: string[] = [];
    session = await startDev({ dir, port: 0, instance: repo, env: {}, out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect(session.first).toMatchObject({ ok: true, installed: { key: 'dev-notes', version: '0.1.0', endpoints: ['dev-notes-notes'] } });
    const first = session.first.ok ? session.first.installed : null;
    expect(first?.appKey).toMatch(/^adm_pub_/);
    expect(lines.join('\n')).toContain(session.credentials.password);
    expect(lines.join('\n')).toContain('disposable');
    expect((await installedAddons(session)).map((a) => [a.key, a.name])).toEqual([['dev-notes', 'Dev Notes']]);

    // An editor's atomic save (a new file renamed over server.ts, as vim, JetBrains and sed -i
    // do): dev still sees it, and the instance runs the new code.
    // Each reinstall makes a new app key: the current one.
    const count = async () => {
      const appKey = session!.current!.appKey!;
      const res = await fetch(`${session!.url}/api/v1/public/apps/dev-notes/actions/count`, {
        method: 'POST',
        headers: { authorization: `Bearer ${appKey}`, origin: session!.url, 'content-type': 'application/json' },
        body: '{"input":null}',
      });
      return { status: res.status, body: (await res.json()) as { data?: { result?: unknown }; error?: { code: string } } };
    };
    expect(await count()).toMatchObject({ status: 200, body: { data: { result: { notes: 0 } } } });
    const serverFile = join(dir, 'server.ts');
    const original = readFileSync(serverFile, 'utf8');
    for (const [edit, result] of [
      ['return { notes: page.rows.length, saved: 1 };', { notes: 0, saved: 1 }],
      ['return { notes: page.rows.length, saved: 2 };', { notes: 0, saved: 2 }],
    ] as const) {
      const saved = session.reinstalled();
      writeFileSync(`${serverFile}.tmp`, original.replace('return { notes: page.rows.length };', edit));
      renameSync(`${serverFile}.tmp`, serverFile);
      expect((await saved).ok).toBe(true);
      expect((await count()).body.data?.result).toEqual(result);
    }
    // A throw in the add-on's code: dev prints it with its message.
    const thrown = session.reinstalled();
    writeFileSync(
      `${serverFile}.tmp`,
      original.replace("const page = await ctx.db.list('notes', { limit: 500 });", "throw new Error('count broke on purpose');"),
    );
    renameSync(`${serverFile}.tmp`, serverFile);
    expect((await thrown).ok).toBe(true);
    expect(await count()).toMatchObject({ status: 502, body: { error: { code: 'ADDON_FAILED' } } });
    await expect.poll(() => lines.join('\n')).toMatch(/\[dev-notes\] (warn|error) .*count broke on purpose/);
    // With the instance's line-exact failures (AO35): where it was thrown, the line and a caret under it.
    const at = original.split('\n').findIndex((l) => l.includes("const page = await ctx.db.list('notes', { limit: 500 });")) + 1;
    await expect.poll(() => lines.join('\n')).toContain(`  at server.ts:${at}:`);
    const text = "      throw new Error('count broke on purpose');";
    expect(lines).toContain(`  ${at} | ${text}`);
    // The caret under the error's construction, where V8 places the throw.
    expect(lines[lines.indexOf(`  ${at} | ${text}`) + 1]).toBe(`  ${' '.repeat(String(at).length)} | ${' '.repeat(text.indexOf('new Error'))}^`);
    const restored = session.reinstalled();
    writeFileSync(serverFile, original);
    expect((await restored).ok).toBe(true);

    // A change: a new name and a new column.
    const manifestFile = join(dir, 'addon.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { name: string; tables: Array<{ columns: unknown[] }> };
    manifest.name = 'Renamed Notes';
    manifest.tables[0]!.columns.push({ name: 'pinned', type: 'boolean', nullable: false, default: false });
    let next = session.reinstalled();
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    const changed = await next;
    expect(changed.ok, JSON.stringify(changed)).toBe(true);
    expect((await installedAddons(session)).map((a) => [a.key, a.name])).toEqual([['dev-notes', 'Renamed Notes']]);
    expect(columns(join(dir, '.svc-dev', 'dev.sqlite'), 'dev_notes__notes')).toContain('pinned');

    // A broken manifest: the problem with its path, and the last good version keeps running.
    next = session.reinstalled();
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, endpoints: [{ ref: 'notes', table: 'nope', methods: ['GET'] }] }, null, 2));
    const broken = await next;
    expect(broken.ok).toBe(false);
    expect(broken.ok ? '' : broken.problems.join('\n')).toMatch(/^addon\.json: endpoints\.0\.table/);
    expect(lines.join('\n')).toContain(manifestFile);
    expect((await installedAddons(session)).map((a) => [a.key, a.name])).toEqual([['dev-notes', 'Renamed Notes']]);

    // A new key: the add-on installed under the old one goes.
    next = session.reinstalled();
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, key: 'dev-jottings' }, null, 2));
    const rekeyed = await next;
    expect(rekeyed.ok, JSON.stringify(rekeyed)).toBe(true);
    expect((await installedAddons(session)).map((a) => a.key)).toEqual(['dev-jottings']);
    expect(session.current?.endpoints).toEqual(['dev-jottings-notes']);

    const pid = session.pid;
    expect(alive(pid)).toBe(true);
    await session.stop();
    expect(await session.exited).toBe(0);
    expect(alive(pid)).toBe(false);
    session = null;

    // A second run on the same folder: signs in with the saved credentials, reuses the connection.
    // The key changed back since the last install (dev-jottings): that one goes.
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    const again = await startDev({ dir, port: 0, instance: repo, env: {}, watch: false, out: () => undefined, err: (l) => lines.push(l) });
    session = again;
    expect(again.first.ok).toBe(true);
    expect(again.credentials.password).toBe(JSON.parse(readFileSync(join(dir, '.svc-dev', 'credentials.json'), 'utf8')).password);
    expect((await installedAddons(again)).map((a) => [a.key, a.name])).toEqual([['dev-notes', 'Renamed Notes']]);
    await again.stop();
    expect(alive(again.pid)).toBe(false);
    session = null;
  }, 120_000);

  it("--allow-outbound needs the instance's sources: a build-only folder is refused before anything starts", async () => {
    const dir = join(root, 'build-only-addon');
    await initAddon(dir);
    const built = join(root, 'build-only-instance');
    mkdirSync(join(built, 'build', 'server'), { recursive: true });
    writeFileSync(join(built, 'package.json'), '{"name":"svc-admin"}');
    writeFileSync(join(built, 'build', 'server', 'main.js'), 'process.exit(3);');
    const started = startDev({ dir, port: 0, instance: built, env: {}, allowOutbound: ['http://127.0.0.1:4010'], out: () => undefined, err: () => undefined });
    await expect(started).rejects.toBeInstanceOf(DevError);
    await expect(started).rejects.toThrow(/--allow-outbound needs svc-admin's sources \(scripts\/dev-instance\.ts\); .* has only its production build/);
    await expect(
      startDev({ dir, port: 0, instance: repo, env: {}, allowOutbound: ['http://127.0.0.1:4010/api'], out: () => undefined, err: () => undefined }),
    ).rejects.toThrow('--allow-outbound http://127.0.0.1:4010/api: an origin only');
    expect(existsSync(join(dir, '.svc-dev', 'instance.log'))).toBe(false);
  });

  it('--allow-outbound lets ctx.fetch reach a loopback mock server at that origin, and only there', async () => {
    const mock = createHttpServer((req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ mock: true, path: req.url })));
    await new Promise<void>((ok) => mock.listen(0, '127.0.0.1', ok));
    const mockPort = (mock.address() as AddressInfo).port;
    const dir = join(root, 'mock-fetch');
    await initAddon(dir);
    const manifestFile = join(dir, 'addon.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { capabilities: string[]; actions: string[]; outbound?: string[] };
    manifest.capabilities.push('fetch');
    manifest.actions.push('callMock');
    manifest.outbound = ['api.example.com'];
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    const serverFile = join(dir, 'server.ts');
    writeFileSync(
      serverFile,
      readFileSync(serverFile, 'utf8').replace(
        '  actions: {\n',
        `  actions: {
    callMock: async (ctx: AddonContext, input: Json) => {
      try {
        const res = await ctx.fetch(String(input));
        return { status: res.status, body: JSON.parse(res.body) as Json };
      } catch (e) {
        return { refused: (e as Error).message };
      }
    },
`,
      ),
    );
    const lines: string[] = [];
    try {
      session = await startDev({
        dir,
        port: 0,
        instance: repo,
        env: {},
        watch: false,
        allowOutbound: [`http://127.0.0.1:${mockPort}`],
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
      });
      expect(session.first.ok, JSON.stringify(session.first)).toBe(true);
      expect(lines).toContain(`  outbound   http://127.0.0.1:${mockPort}  (dev only: ctx.fetch reaches it whatever outbound in addon.json says)`);
      // The instance's own word that it runs the dev entry with this allow-list.
      await expect.poll(() => lines.join('\n')).toContain(`dev instance: add-ons' ctx.fetch reaches http://127.0.0.1:${mockPort} past`);
      const call = async (url: string) => {
        const res = await fetch(`${session!.url}/api/v1/public/apps/mock-fetch/actions/callMock`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session!.current!.appKey!}`, origin: session!.url, 'content-type': 'application/json' },
          body: JSON.stringify({ input: url }),
        });
        return { status: res.status, body: (await res.json()) as { data?: { result?: unknown } } };
      };
      expect(await call(`http://127.0.0.1:${mockPort}/rates?day=1`)).toEqual({
        status: 200,
        body: { data: { result: { status: 200, body: { mock: true, path: '/rates?day=1' } } } },
      });
      // Another port of the same host, and loopback by name: the full policy, with host and reason.
      expect((await call(`http://127.0.0.1:${mockPort + 1}/`)).body.data?.result).toEqual({ refused: 'outbound fetch to 127.0.0.1 refused: private address' });
      expect((await call(`http://localhost:${mockPort}/`)).body.data?.result).toEqual({
        refused: "outbound fetch to localhost refused: host not in the add-on's allow-list (outbound in addon.json)",
      });
      await expect.poll(() => lines.join('\n')).toContain('outbound fetch to 127.0.0.1 refused: private address');
      // The dev entry stops on SIGTERM as the server does.
      await session.stop();
      expect(await session.exited).toBe(0);
      session = null;
    } finally {
      mock.close();
    }
  }, 120_000);
});
