import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPackage, inspectPackage } from '../package/index.js';
import { defineAddon } from '../define.js';
import { SANDBOX_SDK } from './bundle.js';
import { main, packAddon, type CliIo } from './index.js';

const BIN = fileURLToPath(new URL('../../bin/svc-addon.mjs', import.meta.url));
const run = promisify(execFile);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-addon-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs main in this process, capturing what it prints. */
async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: root };
  const code = await main(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function fresh(name: string): Promise<string> {
  const { code, err } = await cli(['init', name]);
  expect(err).toBe('');
  expect(code).toBe(0);
  return join(root, name);
}

describe('svc-addon', () => {
  it('init, check and pack as a child process give a package the server takes', async () => {
    const opts = { cwd: root, env: { ...process.env, NO_COLOR: '1' } };
    const init = await run(process.execPath, [BIN, 'init', 'shop', '--key', 'tiny-shop'], opts);
    expect(init.stdout).toMatch(/Wrote add-on tiny-shop/);
    const dir = join(root, 'shop');
    expect((await readdir(dir)).sort()).toEqual([
      '.gitignore',
      'README.md',
      'addon.json',
      'package.json',
      'server.test.ts',
      'server.ts',
      'surfaces',
      'tsconfig.json',
    ]);
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).devDependencies).toHaveProperty('@svc-admin/addons-sdk');
    // The next step it prints works without a clone: npm run uses the installed SDK's bin, never the registry's.
    expect(init.stdout).toContain('Next: cd shop && npm install && npm run check');

    const check = await run(process.execPath, [BIN, 'check', 'shop'], opts);
    expect(check.stdout.trim()).toBe('tiny-shop 0.1.0: ok');

    const pack = await run(process.execPath, [BIN, 'pack', 'shop', '--out', 'out/shop.tgz'], opts);
    const line = /^out\/shop\.tgz {2}sha256 ([0-9a-f]{64}) {2}(\d+) bytes$/.exec(pack.stdout.trim());
    expect(line, pack.stdout).not.toBeNull();
    const info = await inspectPackage(join(root, 'out/shop.tgz'));
    expect(info.sha256).toBe(line![1]);
    expect(info.packedBytes).toBe(Number(line![2]));
    expect(info.manifest).toMatchObject({
      key: 'tiny-shop',
      version: '0.1.0',
      capabilities: ['db'],
      hooks: ['notes.beforeWrite'],
      actions: ['recent', 'add', 'count'],
    });
    expect(info.files.map((f) => f.path)).toEqual([
      'README.md',
      'addon.json',
      'server.js',
      'server.js.map',
      'surfaces/page/index.html',
      'surfaces/page/page.css',
      'surfaces/page/page.js',
      'surfaces/page/svc-app.js',
    ]);
  });

  it('pack writes the same bytes twice, and a server.js without imports', async () => {
    const dir = await fresh('twice');
    const a = await packAddon(dir, join(root, 'twice-a.tgz'));
    const b = await packAddon(dir, join(root, 'twice-b.tgz'));
    expect(a.sha256).toBe(b.sha256);
    expect((await readFile(a.file)).equals(await readFile(b.file))).toBe(true);
    expect(a.file).toBe(join(root, 'twice-a.tgz'));
    expect((await packAddon(dir)).file).toBe(join(dir, 'twice-0.1.0.tgz'));
    const extracted = join(root, 'twice-x');
    await extractPackage(a.file, extracted);
    const server = await readFile(join(extracted, 'server.js'), 'utf8');
    expect(server).not.toMatch(/^\s*import\s/m);
    expect(server).toMatch(/export\s*\{[^}]*server_default as default\s*\}/);
  });

  it('check reports the path of a broken manifest', async () => {
    const dir = await fresh('broken');
    const manifest = JSON.parse(await readFile(join(dir, 'addon.json'), 'utf8'));
    manifest.endpoints[0].writable = ['title', 'nope'];
    await writeFile(join(dir, 'addon.json'), JSON.stringify(manifest));
    const result = await cli(['check', 'broken']);
    expect(result.code).toBe(1);
    expect(result.err).toBe('addon.json: endpoints.0.writable.1: nope is not a column of notes.');
    await writeFile(join(dir, 'addon.json'), '{');
    expect((await cli(['check', 'broken'])).err).toMatch(/^addon\.json: is not JSON/);
  });

  it('check wants every declared hook and action in server.ts, and surface entries on disk', async () => {
    const dir = await fresh('exports');
    const manifest = JSON.parse(await readFile(join(dir, 'addon.json'), 'utf8'));
    manifest.actions.push('export');
    manifest.hooks.push('schedule:0 6 * * *');
    await writeFile(join(dir, 'addon.json'), JSON.stringify(manifest));
    await rm(join(dir, 'surfaces/page/index.html'));
    const result = await cli(['check', 'exports']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('addon.json: hooks.1: server.ts does not define hook "schedule:0 6 * * *"');
    expect(result.err).toContain('addon.json: actions.3: server.ts does not define action "export"');
    expect(result.err).toContain('addon.json: surfaces.0.entry: surfaces/page/index.html does not exist');
  });

  it('check refuses symbolic links and a bad cron; hooks are never run', async () => {
    const dir = await fresh('links');
    await symlink('/etc/passwd', join(dir, 'surfaces/page/passwd'));
    const manifest = JSON.parse(await readFile(join(dir, 'addon.json'), 'utf8'));
    manifest.hooks.push('schedule:99 * * * *');
    await writeFile(join(dir, 'addon.json'), JSON.stringify(manifest));
    await writeFile(
      join(dir, 'server.ts'),
      `import { defineAddon } from '@svc/addons-sdk';
       const boom = () => { throw new Error('a hook ran'); };
       export default defineAddon({ hooks: { 'notes.beforeWrite': boom, 'schedule:99 * * * *': boom }, actions: { recent: boom, add: boom, count: boom } });`,
    );
    await writeFile(join(dir, 'surfaces/page/App.js'), '1');
    await writeFile(join(dir, 'surfaces/page/app.js'), '2');
    const result = await cli(['check', 'links']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('surfaces/page/passwd: is not a regular file or directory');
    expect(result.err).toMatch(/addon\.json: hooks\.1: not a valid cron expression/);
    expect(result.err).toContain('surfaces/page/app.js: collides with surfaces/page/App.js');
    expect(result.err).not.toMatch(/a hook ran/);
  });

  it('check stops server code whose top level does not end, and skips the names under top-level await', async () => {
    const dir = await fresh('loops');
    const source = await readFile(join(dir, 'server.ts'), 'utf8');
    await writeFile(join(dir, 'server.ts'), `${source}\nwhile (true) {}\n`);
    const result = await cli(['check', 'loops']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^server\.ts: loading the module failed: Script execution timed out/);
    await writeFile(join(dir, 'server.ts'), `${source}\nawait Promise.resolve();\n`);
    expect(await cli(['check', 'loops'])).toMatchObject({
      code: 0,
      err: 'warning: server.ts uses top-level await: check cannot read the names of its hooks and actions.',
    });
  });

  it('pack refuses server code that imports Node built-ins', async () => {
    const dir = await fresh('nodey');
    const source = await readFile(join(dir, 'server.ts'), 'utf8');
    await writeFile(
      join(dir, 'server.ts'),
      `import fs from 'node:fs';\nimport { join } from 'path';\nexport const n = fs.readFileSync(join('/etc', 'passwd'));\n${source}`,
    );
    const result = await cli(['pack', 'nodey']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/server\.ts:1:\d+: "node:fs" is a Node built-in: server code runs in the instance's sandbox/);
    expect(result.err).toMatch(/server\.ts:2:\d+: "path" is a Node built-in/);
    expect(await readdir(dir)).not.toContain('nodey-0.1.0.tgz');
  });

  it('init refuses a non-empty folder and a bad key; usage errors exit 2', async () => {
    await mkdir(join(root, 'full'));
    await writeFile(join(root, 'full', 'x'), '');
    expect(await cli(['init', 'full'])).toMatchObject({ code: 1, err: expect.stringMatching(/is not empty/) });
    expect(await cli(['init', 'k', '--key', 'Bad_Key'])).toMatchObject({ code: 1, err: expect.stringMatching(/not an add-on key/) });
    expect(await readdir(root)).not.toContain('k');
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['check', '--nope'])).code).toBe(2);
    expect(await cli(['dev', '--port', 'x'])).toMatchObject({ code: 2, err: expect.stringMatching(/--port must be a whole number/) });
    expect(await cli(['check', '--port', '3100'])).toMatchObject({ code: 2, err: expect.stringMatching(/are for dev/) });
    expect(await cli(['pack', '--allow-outbound', 'http://127.0.0.1:4010'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--allow-outbound are for dev/),
    });
    for (const [origin, why] of [
      ['127.0.0.1:4010', /not a URL|only http and https/],
      ['ftp://127.0.0.1:21', /only http and https origins/],
      ['http://user:pw@127.0.0.1:4010', /no user or password/],
      ['http://127.0.0.1:4010/api', /an origin only \(scheme, host, port\), without a path; http:\/\/127\.0\.0\.1:4010 allows every path/],
      ['http://127.0.0.1:4010?x=1', /an origin only/],
    ] as const)
      expect(await cli(['dev', 'full', '--allow-outbound', 'http://127.0.0.1:4010', '--allow-outbound', origin])).toMatchObject({
        code: 2,
        err: expect.stringMatching(why),
      });
    expect(await cli(['dev', 'full'])).toMatchObject({ code: 1, err: expect.stringMatching(/^svc-addon dev: .*full has no addon\.json/) });
    expect(await cli(['--help'])).toMatchObject({ code: 0, out: expect.stringContaining('svc-addon pack [dir] [--out <file>]') });
    expect(await cli(['--help'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('svc-addon dev [dir] [--port <n>] [--instance <folder>] [--allow-outbound <origin>]...'),
    });
  });

  it('the sandbox SDK is the same defineAddon', () => {
    const fn = new Function(`${SANDBOX_SDK.replace('export ', '')}; return defineAddon;`)() as typeof defineAddon;
    const definition = { actions: {} };
    expect(fn(definition)).toBe(definition);
    expect(defineAddon(definition)).toBe(definition);
  });
});

describe('svc-addon check: what the surface CSP refuses', () => {
  it('fails on inline script, style, handlers, javascript: URLs and form submission, each with file:line:column', async () => {
    const dir = await fresh('csp');
    await writeFile(
      join(dir, 'surfaces/page/index.html'),
      [
        '<!doctype html>',
        '<html><head><style>body{}</style>',
        '<script type="module">alert(1)</script>',
        '<script type="application/ld+json">{"a":1}</script>',
        '<script src="page.js"></script>',
        '<!-- <script>not code</script> onclick="x" -->',
        '</head><body>',
        '<p style="color: red">x</p> <button type="button" onclick="go()">Go</button>',
        '<a href=" JavaScript:void(0)">a</a>',
        '<form action="/submit" method="post"><button formaction="/x">Send</button></form>',
        '</body></html>',
      ].join('\n'),
    );
    const result = await cli(['check', 'csp']);
    expect(result.code).toBe(1);
    const lines = result.err.split('\n');
    const at = (prefix: string) => lines.filter((l) => l.startsWith(prefix));
    expect(at('surfaces/page/index.html:2:13: inline <style> element')).toHaveLength(1);
    expect(at('surfaces/page/index.html:3:1: inline <script>')).toHaveLength(1);
    expect(at('surfaces/page/index.html:8:4: inline style= attribute')).toHaveLength(1);
    expect(at('surfaces/page/index.html:8:51: inline event handler onclick=')).toHaveLength(1);
    expect(at('surfaces/page/index.html:9:4: javascript: URL in href=')).toHaveLength(1);
    expect(at("surfaces/page/index.html:10:7: <form action>: the surface CSP refuses form submission (form-action 'none')")).toHaveLength(1);
    expect(at('surfaces/page/index.html:10:46: formaction=')).toHaveLength(1);
    // The data block, the script with src and the comment are fine.
    expect(lines.filter((l) => l.startsWith('surfaces/page/index.html'))).toHaveLength(7);
  });

  it('passes the page init writes, and warns when a surface holds another copy of the SDK helper', async () => {
    const dir = await fresh('csp-ok');
    expect(await cli(['check', 'csp-ok'])).toMatchObject({ code: 0, err: '' });
    const helper = join(dir, 'surfaces/page/svc-app.js');
    await writeFile(helper, `${await readFile(helper, 'utf8')}\n// changed\n`);
    expect(await cli(['check', 'csp-ok'])).toMatchObject({ code: 0, err: expect.stringContaining('surfaces/page/svc-app.js is not this SDK') });
  });

  it('pack keeps a v3 source map with the sources, relative to the folder', async () => {
    const dir = await fresh('mapped');
    const packed = await packAddon(dir);
    const extracted = join(root, 'mapped-x');
    await extractPackage(packed.file, extracted);
    const map = JSON.parse(await readFile(join(extracted, 'server.js.map'), 'utf8')) as { version: number; sources: string[]; sourcesContent: string[] };
    expect(map.version).toBe(3);
    expect(map.sources).toContain('server.ts');
    expect(map.sources.join(' ')).not.toContain(root);
    expect(map.sourcesContent[map.sources.indexOf('server.ts')]).toBe(await readFile(join(dir, 'server.ts'), 'utf8'));
  });
});
