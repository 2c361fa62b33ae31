import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The SPA-host and browser tests need the built dashboard; build it once when it is missing. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(`${root}/dashboard/dist/index.html`)) {
    execFileSync('npm', ['run', 'build:dashboard', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}
