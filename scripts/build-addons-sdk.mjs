// `npm run build:addons-sdk`: the SDK as it is published on npm (decisions AO39), in
// addons-sdk/dist/: compiled JavaScript with its .d.ts (tsc), the surface helper, a bin that
// runs the compiled CLI, and a package.json of its own: the scoped name, `exports`, `bin`,
// `files`, and every dependency the compiled code imports. `--dist <folder>`: build there instead
// (tests build in a folder of their own). `--pack <folder>`: also runs
// `npm pack` on it into that folder and prints the tarball's path (the release step publishes
// that tarball: docs/addons.md, Publishing the SDK).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sdk = join(root, 'addons-sdk');
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : resolve(process.argv[at + 1] ?? '.');
};
const dist = option('--dist') ?? join(sdk, 'dist');
const SDK_PACKAGE = /export const SDK_PACKAGE = '([^']+)'/.exec(readFileSync(join(sdk, 'src/sdk-name.ts'), 'utf8'))[1];

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.build.json'), '--outDir', join(dist, 'src')], { stdio: 'inherit' });
cpSync(join(sdk, 'surface'), join(dist, 'surface'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
cpSync(join(sdk, 'README.md'), join(dist, 'README.md'));
mkdirSync(join(dist, 'bin'));
writeFileSync(
  join(dist, 'bin', 'svc-addon.mjs'),
  "#!/usr/bin/env node\nimport { main } from '../src/cli/main.js';\n\nprocess.exitCode = await main(process.argv.slice(2));\n",
  { mode: 0o755 },
);

const source = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
// tsx runs the TypeScript sources inside the repository; the compiled package does not need it.
const { tsx: _tsx, ...dependencies } = source.dependencies;
const entry = (name) => ({ types: `./src/${name}.d.ts`, default: `./src/${name}.js` });
const published = {
  name: SDK_PACKAGE,
  version: source.version,
  description: source.description,
  type: 'module',
  license: source.license,
  engines: { node: '>=20.19' },
  exports: {
    '.': entry('index'),
    './manifest': entry('manifest/index'),
    './package': entry('package/index'),
    './cli': entry('cli/index'),
    './testing': entry('testing/index'),
    './surface': { types: './surface/svc-app.d.ts', default: './surface/svc-app.js' },
    './surface/svc-app.js': './surface/svc-app.js',
    './package.json': './package.json',
  },
  types: './src/index.d.ts',
  bin: { 'svc-addon': 'bin/svc-addon.mjs' },
  files: ['src', 'surface', 'bin', 'README.md'],
  dependencies,
  publishConfig: { access: 'public' },
};
writeFileSync(join(dist, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);

const into = option('--pack');
if (into !== undefined) {
  mkdirSync(into, { recursive: true });
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', into], { cwd: dist, encoding: 'utf8' });
  process.stdout.write(`${join(into, out.trim().split('\n').pop())}\n`);
}
