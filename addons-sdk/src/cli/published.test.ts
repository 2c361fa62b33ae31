import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { builtinModules } from 'node:module';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPackage } from '../package/index.js';
import { SDK_PACKAGE } from '../sdk-name.js';
import { installPackedSdk, REPO, type InstalledSdk } from './packed-sdk.test-helper.js';

const run = promisify(execFile);
let root: string;
let sdk: InstalledSdk;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-addon-published-'));
  sdk = await installPackedSdk(root);
}, 180_000);
afterAll(() => rm(root, { recursive: true, force: true }));

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push(join(e.parentPath, e.name));
  return out;
}

describe('the SDK as published', () => {
  it('is a scoped, compiled, typed package whose dependencies cover every import', async () => {
    expect(sdk.manifest.name).toBe(SDK_PACKAGE);
    expect(SDK_PACKAGE).toMatch(/^@[a-z0-9-]+\//);
    expect(sdk.manifest.bin).toEqual({ 'svc-addon': 'bin/svc-addon.mjs' });
    const installed = join(sdk.dir, 'node_modules', SDK_PACKAGE);
    const shipped = (await files(installed)).map((f) => relative(installed, f));
    expect(shipped.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(shipped).toEqual(expect.arrayContaining(['src/index.js', 'src/index.d.ts', 'src/testing/index.d.ts', 'surface/svc-app.js', 'surface/svc-app.d.ts']));
    expect(shipped.some((f) => f.includes('.test'))).toBe(false);
    // Every package the compiled code imports (esbuild follows its imports; require() of re2-wasm too) is a dependency.
    const entries = Object.values(sdk.manifest.exports)
      .flatMap((e) => (typeof e === 'string' ? [e] : [(e as { default: string }).default]))
      .filter((e) => e.endsWith('.js'))
      .map((e) => join(installed, e));
    const built = await esbuild.build({
      entryPoints: entries,
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      metafile: true,
      outdir: join(root, 'x'),
    });
    const imported = new Set<string>();
    for (const input of Object.values(built.metafile.inputs))
      for (const i of input.imports)
        if (i.external && !i.path.startsWith('node:') && !builtinModules.includes(i.path))
          imported.add(i.path.startsWith('@') ? i.path.split('/').slice(0, 2).join('/') : i.path.split('/')[0]!);
    for (const f of entries.length ? await files(join(installed, 'src')) : [])
      if (f.endsWith('.js')) for (const m of (await readFile(f, 'utf8')).matchAll(/createRequire\(import\.meta\.url\)\('([^']+)'\)/g)) imported.add(m[1]!);
    expect([...imported].sort()).toEqual(Object.keys(sdk.manifest.dependencies).sort());
  });

  it('installs from the tarball with no network, and its bin runs init, check and pack', async () => {
    const opts = { cwd: sdk.dir, env: { ...process.env, NO_COLOR: '1' } };
    const init = await run(sdk.bin, ['init', 'my-notes'], opts);
    expect(init.stdout).toContain('Next: cd my-notes && npm install && npm run check');
    const addon = join(sdk.dir, 'my-notes');
    expect(JSON.parse(await readFile(join(addon, 'package.json'), 'utf8'))).toMatchObject({
      scripts: { check: 'svc-addon check', pack: 'svc-addon pack', dev: 'svc-addon dev' },
      devDependencies: { [SDK_PACKAGE]: `^${sdk.manifest.version}` },
    });
    expect((await run(sdk.bin, ['check'], { ...opts, cwd: addon })).stdout.trim()).toBe('my-notes 0.1.0: ok');
    const packed = await run(sdk.bin, ['pack'], { ...opts, cwd: addon });
    expect(packed.stdout).toMatch(/^my-notes-0\.1\.0\.tgz {2}sha256 [0-9a-f]{64}/);
    const info = await inspectPackage(join(addon, 'my-notes-0.1.0.tgz'));
    expect(info.files.map((f) => f.path)).toContain('server.js.map');
    // The same bytes as the SDK run from the repository's sources.
    const fromSources = await run(process.execPath, [join(REPO, 'addons-sdk/bin/svc-addon.mjs'), 'pack', '--out', join(root, 'sources.tgz')], {
      ...opts,
      cwd: addon,
    });
    expect(fromSources.stdout).toContain(info.sha256);
  });

  it("the starter's server code type-checks against the installed types, and its unit test passes", async () => {
    const addon = join(sdk.dir, 'my-notes');
    // vitest is the author's own dev dependency (npm install fetches it); here the repository's stands in.
    await symlink(join(REPO, 'node_modules/vitest'), join(sdk.dir, 'node_modules/vitest'));
    const tsc = await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', addon]).catch((e: { stdout: string }) => e);
    expect(tsc.stdout).toBe('');
    const test = await run(process.execPath, [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--root', addon], {
      cwd: addon,
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    });
    expect(test.stdout).toMatch(/Tests\s+2 passed/);
  }, 60_000);
});
