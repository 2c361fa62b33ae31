import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md, "Where tests live": a `testing.ts` (or `<name>-testing.ts`) is test
 * support, imported by tests and other test support only. Production code that imported one would
 * ship fakes and switches meant for tests.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_ROOTS = ['kernel', 'plugins', 'addons-sdk/src', 'catalog', 'dashboard/src', 'scripts', 'bench'];
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
const TEST_SUPPORT = /(^|-)testing(\.[cm]?[jt]sx?)?$/;
const isTest = (file: string) => /\.test\.tsx?$/.test(file);
const isTestSupport = (file: string) => TEST_SUPPORT.test(file.split('/').pop()!);
// Tools run by people, not shipped with the server: the benches build fixtures as tests do.
const isTool = (file: string) => file.startsWith('bench/');

function sourceFiles(): string[] {
  return SOURCE_ROOTS.flatMap((dir) =>
    (readdirSync(join(root, dir), { recursive: true }) as string[])
      .map((f) => join(dir, f))
      .filter((f) => SOURCE.test(f) && !f.includes('node_modules') && !f.endsWith('.d.ts')),
  );
}

/** The test-support modules a file imports (static, dynamic and re-exports), by relative path. */
function testSupportImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith('.') && isTestSupport(spec))
    .map((spec) => relative(root, resolve(dirname(join(root, file)), spec)));
}

describe('test support', () => {
  const files = sourceFiles();

  it('is imported by tests: the check sees imports', () => {
    const tests = files.filter(isTest).filter((f) => testSupportImports(f).length > 0);
    expect(tests.length).toBeGreaterThan(10);
  });

  it('is never imported by production code', () => {
    const production = files.filter((f) => !isTest(f) && !isTestSupport(f) && !isTool(f));
    const offenders = production.flatMap((f) => testSupportImports(f).map((t) => `${f} imports ${t}`));
    expect(offenders).toEqual([]);
  });

  // A switch a test flips in a production module flips it for every instance in the process;
  // tests pass their switches as the plugin's options instead (createAddonsPlugin).
  it('is not a switch exported by production code', () => {
    const SWITCH = /^export (let|var) |^export const \w*(TestHooks|Faults)\b/m;
    const production = files.filter((f) => !isTest(f) && !isTestSupport(f) && !isTool(f));
    expect(production.filter((f) => SWITCH.test(readFileSync(join(root, f), 'utf8')))).toEqual([]);
  });
});
