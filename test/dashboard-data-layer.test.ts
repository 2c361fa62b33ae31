import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard's data layer (issue 27, point 5): the REST client (dashboard/src/api/client.ts)
 * is used by the api/ folder and by each area's one `api.ts` (query keys, queries, mutations);
 * screens call those hooks and never the client. Errors and schema types have their own modules
 * (api/errors.ts, api/types.ts) so a screen needs the client for nothing.
 */
const SRC = resolve(import.meta.dirname, '../dashboard/src');
const CLIENT = 'api/client';

/**
 * Files that still import the client while their areas move to api.ts (another change); remove
 * an entry with its move. Only files of these two areas may be listed.
 */
const TEMPORARILY_ALLOWED: string[] = [];

/** Paths under dashboard/src, with `/` whatever the platform. */
const rel = (file: string) => relative(SRC, file).split(sep).join('/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file names: static imports (type-only too), re-exports, dynamic import(). */
export function importedModules(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Whether the file at `path` (relative to dashboard/src) names the client module. */
export function importsClient(path: string, text: string): boolean {
  return importedModules(path, text).some((spec) => {
    if (!spec.startsWith('.')) return false;
    const target = posix.normalize(posix.join(posix.dirname(path), spec)).replace(/\.(js|ts)$/, '');
    return target === CLIENT;
  });
}

/** The api/ folder itself and an area's one data module may use the client. */
export function mayUseClient(path: string): boolean {
  return path.startsWith('api/') || /^areas\/[^/]+\/api\.ts$/.test(path);
}

describe('dashboard data layer', () => {
  it('finds a screen that imports the client, a type-only import, a re-export and a lazy import', () => {
    expect(importsClient('areas/people/Users.tsx', "import { api, ok } from '../../api/client';")).toBe(true);
    expect(importsClient('areas/people/Users.tsx', "import type { Schemas } from '../../api/client.js';")).toBe(true);
    expect(importsClient('shell/x.ts', "export { api } from '../api/client';")).toBe(true);
    expect(importsClient('screens/X.tsx', "const m = () => import('../api/client');")).toBe(true);
    expect(importsClient('areas/people/Users.tsx', "import { useUserList } from './api';\nimport { ApiError } from '../../api/errors';")).toBe(false);
    expect(mayUseClient('areas/people/api.ts')).toBe(true);
    expect(mayUseClient('areas/people/Users.tsx')).toBe(false);
    expect(mayUseClient('areas/people/nested/api.ts')).toBe(false);
    expect(mayUseClient('api/client.ts')).toBe(true);
  });

  it('no screen or helper outside api/ and the areas’ api.ts imports the API client', () => {
    const offenders: string[] = [];
    const stillAllowed: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const path = rel(file);
      if (mayUseClient(path) || !importsClient(path, readFileSync(file, 'utf8'))) continue;
      if (TEMPORARILY_ALLOWED.includes(path)) stillAllowed.push(path);
      else offenders.push(path);
    }
    if (stillAllowed.length) console.log(`Still importing the API client, allowed for now:\n  ${stillAllowed.join('\n  ')}`);
    const gone = TEMPORARILY_ALLOWED.filter((path) => !stillAllowed.includes(path));
    if (gone.length) console.log(`No longer importing the API client (remove from TEMPORARILY_ALLOWED):\n  ${gone.join('\n  ')}`);
    expect(offenders).toEqual([]);
  });

  it('allows for now only files of the areas another change moves', () => {
    for (const path of TEMPORARILY_ALLOWED) expect(path).toMatch(/^areas\/(public-api|add-ons)\//);
  });

  it('every area that reads server data has its api.ts', () => {
    const areas = readdirSync(join(SRC, 'areas'), { withFileTypes: true }).filter((e) => e.isDirectory());
    const missing = areas
      .filter((area) => !readdirSync(join(SRC, 'areas', area.name)).includes('api.ts'))
      .filter((area) => sourceFiles(join(SRC, 'areas', area.name)).some((f) => /useQuery|useMutation|useInfiniteQuery/.test(readFileSync(f, 'utf8'))))
      .map((area) => area.name);
    // An area whose move is under way (its files are in TEMPORARILY_ALLOWED) may lack it for now.
    const moving = missing.filter((name) => TEMPORARILY_ALLOWED.some((path) => path.startsWith(`areas/${name}/`)));
    if (moving.length) console.log(`Without an api.ts yet, allowed for now: ${moving.join(', ')}`);
    expect(missing.filter((name) => !moving.includes(name))).toEqual([]);
  });
});
