/**
 * `npm run bench`: runs every bench/*.ts (except this file) in sequence, each in its own node
 * process with the same flags, and exits non-zero if one fails. Helpers live in bench/lib/.
 * Benchmarks report numbers; they never fail on a timing.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.d.ts'))
  .filter((f) => only.length === 0 || only.includes(f.replace(/\.ts$/, '')))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n=== bench/${file} ===`);
  const started = Date.now();
  // Each bench gets 5 minutes; one that hangs is killed and counts as failed.
  const res = spawnSync(process.execPath, [...process.execArgv, `${dir}${file}`], { stdio: 'inherit', timeout: 5 * 60_000 });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (res.status !== 0) {
    failed++;
    console.log(`=== bench/${file} FAILED (${res.error?.message ?? `exit ${res.status ?? res.signal}`}) after ${secs} s ===`);
  } else console.log(`=== bench/${file} done in ${secs} s ===`);
}
process.exit(failed > 0 ? 1 : 0);
