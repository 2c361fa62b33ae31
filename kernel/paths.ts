import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder, found by walking up to our package.json. Files beside the sources
 * (the dashboard's build, docs/, package.json) are reached from here rather than relative to a
 * module's own URL, because the same module runs from `kernel/` (tests, tsx) and from the
 * compiled bundle in `build/server/` (`npm start`).
 */
function findProjectRoot(from: string): string {
  let dir = from;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'svc-admin') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the svc-admin package.json above ${from}`);
    dir = parent;
  }
}

export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the project, e.g. `projectPath('dashboard', 'dist')`. */
export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}
