import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MESSAGE_IDS, generateMessageIds, readSourceCatalogue } from '../scripts/gen-messages.mjs';

/**
 * The dashboard's strings load in parts (issues 27, 31): the shell's (i18n/en/shell.json) are in the
 * first load, each area's (i18n/<locale>/<area>.json) load with its screens through
 * `lazyWithMessages('<area>')` in its area.ts. `t(id)` is typed against the whole catalogue
 * (i18n/message-ids.ts, generated from i18n/en). This checks the parts stay apart, that code only
 * names strings loaded wherever it runs, and that the generated ids are those of the sources.
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
const CATALOGUE = readSourceCatalogue();
const SHELL_IDS = new Set(Object.keys(CATALOGUE.shell!));
const AREAS = [...MODULES.keys()].map((p) => /^areas\/([^/]+)\/area\.ts$/.exec(p)?.[1]).filter((a): a is string => a !== undefined);
/** Each area's own strings, by area name (an area's namespace is its name). */
const AREA_IDS = new Map(AREAS.filter((area) => CATALOGUE[area]).map((area) => [area, new Set(Object.keys(CATALOGUE[area]!))] as const));
const ALL_IDS = new Set(Object.values(CATALOGUE).flatMap((messages) => Object.keys(messages)));
const areaOf = (path: string) => /^areas\/([^/]+)\//.exec(path)?.[1];

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
    for (const next of module.dynamics) reach(next, area ?? context);
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
  it('gives every id once: no namespace repeats another’s', () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const [namespace, messages] of Object.entries(CATALOGUE)) {
      for (const id of Object.keys(messages)) {
        if (seen.has(id)) repeated.push(`${id} in ${seen.get(id)} and ${namespace}`);
        else seen.set(id, namespace);
      }
    }
    expect(repeated).toEqual([]);
  });

  it('generates the message ids from the English sources (npm run gen:messages)', async () => {
    expect(readFileSync(MESSAGE_IDS, 'utf8')).toBe(await generateMessageIds());
  });

  it('never loads an area’s strings but through the area’s lazy screens', () => {
    const wrong: string[] = [];
    for (const [path, module] of MODULES) {
      for (const match of module.source.text.matchAll(/i18n\/en\/([a-z-]+)\.json/g)) {
        if (!(path === 'i18n/t.ts' && match[1] === 'shell')) wrong.push(`${path} names ${match[0]} (strings load through loadNamespace)`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has each area with strings declare its screens with lazyWithMessages', () => {
    const missing = [...AREA_IDS.keys()].filter((area) => {
      const text = MODULES.get(`areas/${area}/area.ts`)?.source.text ?? '';
      return !text.includes(`lazyWithMessages('${area}')`) || /import \{[^}]*\blazy\b[^}]*\} from 'react'/.test(text);
    });
    expect(missing).toEqual([]);
  });

  it('names only strings that are loaded wherever the code runs', () => {
    const where = contexts();
    const unloaded: string[] = [];
    for (const [path, module] of MODULES) {
      const places = where.get(path);
      if (!places) continue;
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
    for (const [area] of AREA_IDS) {
      const texts = Object.values(CATALOGUE[area]!);
      // Plain sentences survive minification as they are.
      for (const text of texts.filter((s) => /^[A-Za-z ,.]{20,}$/.test(s))) if (firstLoad.includes(text)) found.push(`${area}: ${text}`);
    }
    expect(found).toEqual([]);
  });
});
