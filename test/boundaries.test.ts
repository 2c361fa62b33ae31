import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PORTABLE_TYPES as SDK_PORTABLE_TYPES } from '../addons-sdk/src/manifest/declarations.js';
import { FILTER_OPS as SDK_FILTER_OPS } from '../addons-sdk/src/manifest/endpoint.js';
import { FILTER_OPS } from '../engine/rows/query-params.js';
import { PORTABLE_TYPES } from '../engine/schema/model.js';
import { projectPath } from '../kernel/paths.js';

/**
 * The import rules of docs/architecture.md, read from the source: every .ts/.tsx file's import
 * and export-from declarations and its `import('…')` with a literal. An import counts as
 * type-only when the compiler erases it (`import type`, every name marked `type`, or no
 * imported name used as a value), as tsc, tsx and esbuild do.
 */

const ROOT = projectPath();
const TOPS = ['kernel', 'engine', 'plugins', 'test', 'bench', 'addons-sdk', 'catalog', 'dashboard', 'i18n'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', '.svc-dev']);

/** The only kernel files that load the plugins: the server's entry and the OpenAPI document (written by kernel/openapi/write.ts). */
const COMPOSITION_ROOTS = new Set(['kernel/main.ts', 'kernel/openapi/document.ts']);
/** Kernel core files that may import the engine (none today: plugins bring the engine to the kernel, not the reverse). */
const CORE_TO_ENGINE = new Set<string>([]);
/** What the dashboard may import from outside its folder: the API document its client types are generated from. */
const DASHBOARD_OUTSIDE = new Set(['docs/openapi.json']);
/**
 * The catalogues at the root, i18n/<locale>/<namespace>.json, and the ICU check beside them
 * (i18n/icu-check.ts): shared by the dashboard and the server, so they import neither (IN2).
 */
const isSharedI18n = (f: string) => /^i18n\/[^/]+\/[^/]+\.json$/.test(f) || f === 'i18n/icu-check.ts';
/** The kernel's one face for plugins. */
const KERNEL_FACE = 'kernel/api.ts';
/** The add-on SDK's package name; its subpaths resolve into addons-sdk/src (addons-sdk/package.json "exports"). */
const SDK_EXPORTS: Record<string, string> = {
  '@svc/addons-sdk': 'addons-sdk/src/index.ts',
  '@svc/addons-sdk/manifest': 'addons-sdk/src/manifest/index.ts',
  '@svc/addons-sdk/package': 'addons-sdk/src/package/index.ts',
  '@svc/addons-sdk/cli': 'addons-sdk/src/cli/index.ts',
};

type Kind = 'static' | 'dynamic';
interface Edge {
  from: string;
  /** The specifier as written. */
  spec: string;
  /** The repository file it resolves to, or null for a package. */
  to: string | null;
  kind: Kind;
  typeOnly: boolean;
}

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name));
      } else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(join(dir, e.name).split(sep).join('/'));
    }
  };
  for (const top of TOPS) walk(top);
  return out;
}

function resolve(from: string, spec: string): string | null {
  if (SDK_EXPORTS[spec]) return SDK_EXPORTS[spec];
  if (!spec.startsWith('.')) return null;
  const base = join(dirname(from), spec).split(sep).join('/');
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    `${base}.tsx`,
    `${base}/index.ts`,
    `${base}/index.tsx`,
    `${base}.d.ts`,
  ];
  for (const c of candidates) if (existsSync(join(ROOT, c)) && statSync(join(ROOT, c)).isFile()) return c;
  return base;
}

/** Names used as values anywhere in the file (outside types, interfaces and `implements`). */
function valueNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ImplementsKeyword) return;
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const isMemberName = (ts.isPropertyAccessExpression(p) && p.name === node) || (ts.isPropertyAssignment(p) && p.name === node);
      if (!isMemberName) names.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

function edgesOf(path: string): Edge[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const values = valueNames(file);
  const edges: Edge[] = [];
  const add = (spec: string, kind: Kind, typeOnly: boolean) => edges.push({ from: path, spec, to: resolve(path, spec), kind, typeOnly });
  for (const st of file.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      let typeOnly = false;
      if (clause) {
        const bound: string[] = [];
        if (clause.name) bound.push(clause.name.text);
        const nb = clause.namedBindings;
        if (nb && ts.isNamespaceImport(nb)) bound.push(nb.name.text);
        if (nb && ts.isNamedImports(nb)) for (const el of nb.elements) if (!el.isTypeOnly) bound.push(el.name.text);
        typeOnly = clause.isTypeOnly || !bound.some((n) => values.has(n));
      }
      add(st.moduleSpecifier.text, 'static', typeOnly);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      const ec = st.exportClause;
      const typeOnly = st.isTypeOnly || (!!ec && ts.isNamedExports(ec) && ec.elements.length > 0 && ec.elements.every((el) => el.isTypeOnly));
      add(st.moduleSpecifier.text, 'static', typeOnly);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) add(arg.text, 'dynamic', false);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return edges;
}

/** Tests and their support: a `*.test.ts`, anything under test/, a `testing.ts` helper, a test's child process (`*-child.ts`). */
const isTestSupport = (f: string) => /\.test\.tsx?$/.test(f) || f.startsWith('test/') || /(^|\/)testing\.ts$/.test(f) || /-child\.ts$/.test(f);
const under = (f: string | null, top: string) => f !== null && f.startsWith(`${top}/`);
/** The plugin a file belongs to; null for plugins/index.ts, the list of plugins. */
const pluginOf = (f: string) => (f.split('/').length > 2 ? f.split('/')[1]! : null);
const show = (e: Edge) => `${e.from} → '${e.spec}'${e.typeOnly ? ' (type-only)' : ''}${e.kind === 'dynamic' ? ' (dynamic)' : ''}`;

/** The violations of each rule, as one line per import. */
function violations(edges: Edge[]): Record<string, string[]> {
  const v: Record<string, string[]> = {
    kernelOrEngineToPlugins: [],
    engineToSdk: [],
    coreToEngine: [],
    dashboardOutside: [],
    i18nImports: [],
    pluginToPluginInside: [],
    pluginToKernelInside: [],
    serverToScripts: [],
    cycles: [],
  };
  for (const e of edges) {
    if (isTestSupport(e.from)) continue;
    const fromKernel = under(e.from, 'kernel');
    const fromEngine = under(e.from, 'engine');
    if ((fromKernel || fromEngine) && under(e.to, 'plugins') && !COMPOSITION_ROOTS.has(e.from)) v.kernelOrEngineToPlugins!.push(show(e));
    if (fromEngine && under(e.to, 'addons-sdk')) v.engineToSdk!.push(show(e));
    if (fromKernel && under(e.to, 'engine') && !CORE_TO_ENGINE.has(e.from)) v.coreToEngine!.push(show(e));
    if (under(e.from, 'dashboard') && e.to !== null && !under(e.to, 'dashboard') && !DASHBOARD_OUTSIDE.has(e.to) && !isSharedI18n(e.to))
      v.dashboardOutside!.push(show(e));
    if (under(e.from, 'i18n') && (e.to !== null || e.spec.startsWith('node:') || e.spec.startsWith('@svc/'))) v.i18nImports!.push(show(e));
    if (under(e.from, 'dashboard') && e.to === null && e.spec.startsWith('@svc/')) v.dashboardOutside!.push(show(e));
    const fromPlugin = under(e.from, 'plugins') ? pluginOf(e.from) : null;
    if (fromPlugin !== null && under(e.to, 'plugins') && pluginOf(e.to!) !== fromPlugin && !e.to!.endsWith('/provides.ts'))
      v.pluginToPluginInside!.push(show(e));
    if (fromPlugin !== null && under(e.to, 'kernel') && e.to !== KERNEL_FACE) v.pluginToKernelInside!.push(show(e));
    if ((fromKernel || fromEngine || under(e.from, 'plugins')) && under(e.to, 'scripts')) v.serverToScripts!.push(show(e));
  }
  v.cycles = runtimeCycles(edges).map((c) => c.join(' → '));
  return v;
}

/**
 * Cycles of static runtime imports among non-test files (Tarjan's strongly connected
 * components): the module order then depends on which file is loaded first. A dynamic import
 * runs after every module has loaded, so it cannot make one.
 */
function runtimeCycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (e.typeOnly || e.kind === 'dynamic' || e.to === null || isTestSupport(e.from) || isTestSupport(e.to)) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (next.get(v) ?? []).includes(v)) found.push(cycleThrough(comp.sort(), next));
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) strong(v);
  return found;
}

/** One cycle through the first file of a strongly connected component, as a path back to it. */
function cycleThrough(comp: string[], next: Map<string, string[]>): string[] {
  const inside = new Set(comp);
  const start = comp[0]!;
  const seen = new Set<string>();
  const walk = (f: string, path: string[]): string[] | null => {
    for (const w of next.get(f) ?? []) {
      if (w === start) return [...path, w];
      if (inside.has(w) && !seen.has(w)) {
        seen.add(w);
        const found = walk(w, [...path, w]);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(start, [start]) ?? comp;
}

/** `kernel.plugin(…)` calls in plugin files (not tests) given something other than a reference. */
function pluginCallsByName(): string[] {
  const found: string[] = [];
  for (const path of sourceFiles()) {
    if (!under(path, 'plugins') || isTestSupport(path)) continue;
    const file = ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'plugin') {
        const arg = node.arguments[0];
        // A reference is a provides.ts (or service.ts) constant named `…Ref`; anything else is a name.
        if (arg && !(ts.isIdentifier(arg) && arg.text.endsWith('Ref'))) found.push(`${path}: ${node.getText(file)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

const EDGES = sourceFiles().flatMap(edgesOf);

describe('import boundaries (docs/architecture.md)', () => {
  const v = violations(EDGES);

  it('reads the tree', () => {
    console.info(`${EDGES.length} imports in ${new Set(EDGES.map((e) => e.from)).size} files`);
    // A guard against a reader that silently finds nothing.
    expect(EDGES.length).toBeGreaterThan(2000);
    expect(EDGES.filter((e) => e.to !== null && e.to.startsWith('plugins/') && COMPOSITION_ROOTS.has(e.from)).length).toBeGreaterThan(0);
  });

  it('the kernel and the engine import no plugin, except the composition roots', () => {
    expect(v.kernelOrEngineToPlugins).toEqual([]);
  });

  it('the engine does not import the add-on SDK, not even its types', () => {
    expect(v.engineToSdk).toEqual([]);
  });

  it('the engine and the add-on SDK spell the same portable types and filter operators (the SDK is a package of its own)', () => {
    expect(PORTABLE_TYPES).toEqual(SDK_PORTABLE_TYPES);
    expect(FILTER_OPS).toEqual(SDK_FILTER_OPS);
  });

  it('the kernel core does not import the engine', () => {
    expect(v.coreToEngine).toEqual([]);
  });

  it('the dashboard imports nothing outside dashboard/ but the API document', () => {
    expect(v.dashboardOutside).toEqual([]);
  });

  it('the shared i18n folder (the ICU check) imports packages only: no node, server or dashboard module', () => {
    expect(v.i18nImports).toEqual([]);
  });

  it('no runtime import cycle', () => {
    expect(v.cycles).toEqual([]);
  });

  it('a plugin imports another plugin only through its provides.ts', () => {
    expect(v.pluginToPluginInside).toEqual([]);
  });

  it('a plugin imports the kernel only through kernel/api.ts', () => {
    expect(v.pluginToKernelInside).toEqual([]);
  });

  it('the server imports nothing from scripts/ (the dev entry, scripts/dev-instance.ts, stays out of the server build: AO40)', () => {
    expect(v.serverToScripts).toEqual([]);
  });

  it('a plugin reaches another plugin through its reference, not by name', () => {
    expect(pluginCallsByName()).toEqual([]);
  });
});
