import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard's strings load in parts (issue 27): the shell's (shell/messages.en.ts) are in the
 * first load, each area's (areas/<name>/messages.en.ts) load with its screens through
 * `lazyWithMessages` in its area.ts. `t(id)` is typed against the whole catalogue
 * (i18n/messages.en.ts, imported by the app for its type only). This checks the parts stay apart
 * and that code only names strings loaded wherever it runs.
 */
const SRC = resolve(import.meta.dirname, '../dashboard/src');
const DIST = resolve(import.meta.dirname, '../dashboard/dist');

/** Paths under dashboard/src, with `/` whatever the platform. */
const rel = (file: string) => relative(SRC, file).split(sep).join('/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

interface Module {
  source: ts.SourceFile;
  /** Modules whose code comes with this one (static imports and re-exports, not type-only ones). */
  statics: string[];
  /** Modules loaded later, by import(). */
  dynamics: string[];
  /** Modules named only for their types. */
  typeOnly: string[];
}

/** The file a relative specifier names (`./x`, `./x.js`), or undefined for a package. */
function resolveSpec(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = join(SRC, dirname(from), spec).replace(/\.js$/, '');
  const found = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
  return found ? rel(found) : undefined;
}

function readModule(path: string): Module {
  const text = readFileSync(join(SRC, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const module: Module = { source, statics: [], dynamics: [], typeOnly: [] };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolveSpec(path, node.moduleSpecifier.text);
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      if (target) (typeOnly ? module.typeOnly : module.statics).push(target);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      const target = arg && ts.isStringLiteralLike(arg) ? resolveSpec(path, arg.text) : undefined;
      if (target) module.dynamics.push(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return module;
}

const MODULES = new Map(sourceFiles(SRC).map((file) => [rel(file), readModule(rel(file))]));
const SHELL_MESSAGES = 'shell/messages.en.ts';
const CATALOGUE = 'i18n/messages.en.ts';
const isMessages = (path: string) => path.endsWith('/messages.en.ts');
const areaOf = (path: string) => /^areas\/([^/]+)\//.exec(path)?.[1];

/** The ids of one messages module, read from its source (a catalogue is a flat object literal). */
function idsOf(path: string): Set<string> {
  const ids = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && ts.isStringLiteral(node.name)) ids.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(MODULES.get(path)!.source);
  return ids;
}

const SHELL_IDS = idsOf(SHELL_MESSAGES);
/** Each area's own strings, by area name. */
const AREA_IDS = new Map([...MODULES.keys()].filter((p) => isMessages(p) && areaOf(p)).map((p) => [areaOf(p)!, idsOf(p)] as const));
const ALL_IDS = new Set([...SHELL_IDS, ...[...AREA_IDS.values()].flatMap((ids) => [...ids])]);

/**
 * Where each module's code may run, as the strings loaded then: 'shell' for the first load (and
 * the shell's own lazy screens), an area's name for what its lazy screens load. A module reached
 * both ways has both.
 */
function contexts(): Map<string, Set<string>> {
  const where = new Map<string, Set<string>>();
  const reach = (path: string, context: string) => {
    const seen = where.get(path) ?? new Set<string>();
    if (seen.has(context)) return;
    seen.add(context);
    where.set(path, seen);
    const module = MODULES.get(path);
    if (!module) return;
    for (const next of module.statics) reach(next, context);
    const area = /^areas\/([^/]+)\/area\.ts$/.exec(path)?.[1];
    // What an area.ts loads lazily is that area's screens, which come with its strings.
    for (const next of module.dynamics) if (!isMessages(next)) reach(next, area ?? context);
  };
  reach('main.tsx', 'shell');
  return where;
}

/** The catalogue ids a module names: string literals that are ids, and the fixed start of a template given to t() (`publicApi.keys.kind.${k}`). */
function namedIds(module: Module): { ids: string[]; prefixes: string[] } {
  const ids: string[] = [];
  const prefixes: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && ALL_IDS.has(node.text)) ids.push(node.text);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 't') {
      const [first] = node.arguments;
      if (first && ts.isTemplateExpression(first) && first.head.text !== '') prefixes.push(first.head.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(module.source);
  return { ids, prefixes };
}

describe("the dashboard's strings load with the code that shows them", () => {
  it('gives every id once: no area repeats a shell id or another area’s', () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const [path] of MODULES) {
      if (!isMessages(path) || path === CATALOGUE) continue;
      for (const id of idsOf(path)) {
        if (seen.has(id)) repeated.push(`${id} in ${seen.get(id)} and ${path}`);
        else seen.set(id, path);
      }
    }
    expect(repeated).toEqual([]);
  });

  it('never loads the whole catalogue or an area’s strings but through the area’s lazy screens', () => {
    const wrong: string[] = [];
    for (const [path, module] of MODULES) {
      if (path === CATALOGUE) continue;
      for (const target of module.statics) {
        if (target === CATALOGUE) wrong.push(`${path} imports the values of ${CATALOGUE} (import its type only)`);
        else if (isMessages(target) && target !== SHELL_MESSAGES) wrong.push(`${path} imports ${target} (an area's strings load with its screens)`);
      }
      for (const target of module.dynamics) {
        if (isMessages(target) && !(path === `areas/${areaOf(target)}/area.ts`)) wrong.push(`${path} loads ${target}, another place's strings`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has each area with strings declare its screens with lazyWithMessages', () => {
    const missing = [...AREA_IDS.keys()].filter((area) => {
      const text = MODULES.get(`areas/${area}/area.ts`)?.source.text ?? '';
      return !text.includes("lazyWithMessages(() => import('./messages.en'))") || /import \{[^}]*\blazy\b[^}]*\} from 'react'/.test(text);
    });
    expect(missing).toEqual([]);
  });

  it('names only strings that are loaded wherever the code runs', () => {
    const where = contexts();
    const unloaded: string[] = [];
    for (const [path, module] of MODULES) {
      const places = where.get(path);
      if (!places || isMessages(path)) continue;
      const loaded = (place: string) => new Set([...SHELL_IDS, ...(place === 'shell' ? [] : (AREA_IDS.get(place) ?? []))]);
      const sets = [...places].map(loaded);
      // An area's module in the first load (its api.ts, its navigation) keeps its own strings for
      // the functions its screens call; what the navigation draws must be the shell's: its area.ts
      // (the labels) is held to that, the rest is left to the browser tests (an id drawn before
      // its area's strings load shows as the id and logs a console error, which they fail on).
      const own = path.endsWith('/area.ts') ? undefined : areaOf(path);
      const allowed = (id: string) => sets.every((set) => set.has(id)) || (own !== undefined && AREA_IDS.get(own)?.has(id) === true);
      const { ids, prefixes } = namedIds(module);
      for (const id of new Set(ids)) if (!allowed(id)) unloaded.push(`${path} (runs in ${[...places].join(', ')}): ${id}`);
      for (const prefix of new Set(prefixes)) {
        if (![...ALL_IDS].some((id) => id.startsWith(prefix) && allowed(id))) unloaded.push(`${path} (runs in ${[...places].join(', ')}): ${prefix}…`);
      }
    }
    expect(unloaded).toEqual([]);
  });

  it('keeps every area’s strings out of the first load of the built app', () => {
    // dist is built by the global setup when older than the sources.
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    const firstLoad = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => readFileSync(join(DIST, m[1]!), 'utf8')).join('\n');
    expect(firstLoad).toContain('Live updates are paused'); // the shell's are there
    const found: string[] = [];
    for (const [area, ids] of AREA_IDS) {
      const catalogue = MODULES.get(`areas/${area}/messages.en.ts`)!.source;
      const texts: string[] = [];
      const visit = (node: ts.Node) => {
        if (ts.isPropertyAssignment(node) && ts.isStringLiteral(node.initializer) && ids.has((node.name as ts.StringLiteral).text))
          texts.push(node.initializer.text);
        ts.forEachChild(node, visit);
      };
      visit(catalogue);
      // Plain sentences survive minification as they are.
      for (const text of texts.filter((s) => /^[A-Za-z ,.]{20,}$/.test(s))) if (firstLoad.includes(text)) found.push(`${area}: ${text}`);
    }
    expect(found).toEqual([]);
  });
});
