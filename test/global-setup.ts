import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The SPA-host and browser tests need the built dashboard; build it once when it is missing.
 * The built-in add-on catalog (catalog/dist) is built when missing or older than its sources
 * (a fresh clone, or an edited add-on); when it is current this costs a few file stats.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(`${root}/dashboard/dist/index.html`)) {
    execFileSync('npm', ['run', 'build:dashboard', '--silent'], { cwd: root, stdio: 'inherit' });
  }
  execFileSync(process.execPath, ['scripts/build-catalog.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}
