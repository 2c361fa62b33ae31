import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import * as esbuild from 'esbuild';
import { SDK_PACKAGE, SDK_WORKSPACE_PACKAGE } from '../sdk-name.js';

/** The names server code may not import: the sandbox has no Node API (D25). */
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const BUILTIN_FILTER = new RegExp(`^(node:.*|${[...builtinModules].map(escape).join('|')})(/.*)?$`);

/**
 * What the SDK (`@svc-admin/addons-sdk`, or `@svc/addons-sdk` inside the repository) is inside the sandbox: `defineAddon` (the identity) and nothing else
 * at run time; everything else the SDK exports is types or authoring-time code. A virtual
 * module, so that the bundle does not carry a path of the author's machine.
 */
export const SANDBOX_SDK = 'export function defineAddon(definition) { return definition; }\n';

export class BundleError extends Error {
  override readonly name = 'BundleError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** The entry file of an add-on's server code in its folder, if any. */
export const SERVER_ENTRIES = ['server.ts', 'server.mts', 'server.js', 'server.mjs'] as const;

const SDK_NAMES = `(${escape(SDK_PACKAGE)}|${escape(SDK_WORKSPACE_PACKAGE)})`;

const sandboxPlugin: esbuild.Plugin = {
  name: 'svc-addon-sandbox',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${SDK_NAMES}$`) }, () => ({ path: SDK_PACKAGE, namespace: 'svc-sdk' }));
    build.onResolve({ filter: new RegExp(`^${SDK_NAMES}/`) }, (args) => ({
      errors: [{ text: `"${args.path}" is authoring-time code; server code may import only "${SDK_PACKAGE}" (defineAddon and the types).` }],
    }));
    build.onLoad({ filter: /.*/, namespace: 'svc-sdk' }, () => ({ contents: SANDBOX_SDK, loader: 'js' }));
    build.onResolve({ filter: BUILTIN_FILTER }, (args) => {
      const name = args.path.replace(/^node:/, '').split('/')[0]!;
      if (!BUILTINS.has(name) && !args.path.startsWith('node:')) return undefined;
      return {
        errors: [
          {
            text: `"${args.path}" is a Node built-in: server code runs in the instance's sandbox, which has no Node API. Use the host API (ctx.db, ctx.kv, ctx.fetch, …) instead.`,
          },
        ],
      };
    });
  },
};

/** The bundled server code and, for pack, its source map (v3, with sourcesContent; sources relative to the add-on's folder). */
export interface Bundle {
  code: string;
  map: string | null;
}

async function build(entry: string, dir: string, format: 'esm' | 'iife'): Promise<Bundle> {
  let result: esbuild.BuildResult<{ write: false }>;
  try {
    result = await esbuild.build({
      entryPoints: [join(dir, entry)],
      absWorkingDir: dir,
      // server.js beside the sources: the map names them relative to the add-on's folder
      // (`server.ts`, `lib/x.ts`), never a path of the author's machine.
      outfile: join(dir, 'server.js'),
      sourcemap: format === 'esm' ? 'linked' : false,
      sourcesContent: true,
      bundle: true,
      write: false,
      format,
      globalName: format === 'iife' ? '__svcAddon' : undefined,
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      charset: 'utf8',
      legalComments: 'eof',
      logLevel: 'silent',
      plugins: [sandboxPlugin],
    });
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    if (!Array.isArray(failure.errors)) throw error;
    throw new BundleError(failure.errors.map((m) => (m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ${m.text}` : m.text)));
  }
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.js.map'))?.text ?? null;
  return { code, map };
}

/**
 * Bundles the add-on's server code into the one ES module a package carries as `server.js`, and
 * its source map `server.js.map`, by which the instance points a failure at the line of the
 * author's source.
 */
export function bundleServer(dir: string, entry: string): Promise<Bundle> {
  return build(entry, dir, 'esm');
}

export interface ServerExports {
  hooks: string[];
  actions: string[];
}

/**
 * The names of the hooks and actions the server code's default export defines (functions
 * only). The module's top level runs, in a bare vm context with a 1 s limit (no Node API, a
 * silent console); no hook or action is called. Null when the code uses top-level await,
 * which this way of loading cannot hold.
 */
export async function readServerExports(dir: string, entry: string): Promise<ServerExports | null> {
  let code: string;
  try {
    code = (await build(entry, dir, 'iife')).code;
  } catch (error) {
    // An IIFE cannot hold top-level await: the names cannot be read this way.
    if (error instanceof BundleError && error.problems.some((p) => /Top-level await/i.test(p))) return null;
    throw error;
  }
  const noop = (): void => undefined;
  const context = createContext({ console: { log: noop, info: noop, warn: noop, error: noop, debug: noop } });
  let definition: unknown;
  try {
    runInContext(`${code}\n;globalThis.__svcAddonDefault = __svcAddon.default;`, context, { timeout: 1000, filename: entry });
    definition = (context as { __svcAddonDefault?: unknown }).__svcAddonDefault;
  } catch (error) {
    throw new BundleError([`loading the module failed: ${(error as Error).message ?? String(error)}`]);
  }
  if (!definition || typeof definition !== 'object')
    throw new BundleError([`the module's default export is not an add-on definition; end it with \`export default defineAddon({ hooks, actions })\`.`]);
  const names = (key: 'hooks' | 'actions'): string[] => {
    const record = (definition as Record<string, unknown>)[key];
    if (!record || typeof record !== 'object') return [];
    return Object.keys(record).filter((k) => typeof (record as Record<string, unknown>)[k] === 'function');
  };
  return { hooks: names('hooks'), actions: names('actions') };
}
