import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The newest modification time of a file under `path` (a file or a folder). Unit tests beside
 * the dashboard's code are not in the build: editing one must not rebuild dist under a browser
 * test that is running.
 */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(path) ? 0 : stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dashboard/dist is missing or older than any of its sources. */
function dashboardStale(root: string): boolean {
  const built = `${root}/dashboard/dist/index.html`;
  if (!existsSync(built)) return true;
  const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json']
    .map((p) => `${root}/dashboard/${p}`)
    .concat(`${root}/i18n/en`)
    .filter((p) => existsSync(p));
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

/**
 * The SPA-host and browser tests need the built dashboard; build it when it is missing or
 * older than its sources (the browser tests test what the sources say, not an old build).
 * The built-in add-on catalog (catalog/dist) is built when missing or older than its sources
 * (a fresh clone, or an edited add-on); when it is current this costs a few file stats.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (dashboardStale(root)) {
    execFileSync('npm', ['run', 'build:dashboard', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  execFileSync(process.execPath, ['scripts/build-catalog.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
