/**
 * Idle memory of a started instance (issue 12, goal < 100 MB): the server as `npm start` runs it
 * (compiled, bench/lib/server-process.ts), a temp data dir with the embedded SQLite meta store,
 * no setup done. For each of `BENCH_REPEAT` starts (default 3): wait until it answers, stay idle
 * 30 s (`BENCH_IDLE_S`), ask `GET /api/v1/healthz` once, read the process's resident memory
 * (VmRSS), stop it. 30 s because V8 gives the start's young generation back only when its memory
 * reducer finds allocation low (decisions K35), 10–20 s after the start depending on the host's
 * speed; before that the figure is the start's, not an idle server's. Prints every start and the
 * median. Numbers only: it never fails on a size.
 *
 *   npm run bench -- idle-memory
 *   BENCH_NODE_FLAGS="--max-semi-space-size=8" node --no-node-snapshot --import tsx bench/idle-memory.ts   # flags added to npm start's
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positiveInt, printMachine } from './lib/env.js';
import { startCommand, startServerProcess } from './lib/server-process.js';

const REPEAT = positiveInt('BENCH_REPEAT', 3);
const IDLE_S = positiveInt('BENCH_IDLE_S', 30);
const GOAL_MB = 100;
const MB = 1024 * 1024;
const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

function kb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

printMachine();
const { flags, entry } = startCommand();
console.log(`server: node ${[...flags, ...extraFlags].join(' ')} ${entry}; ${IDLE_S} s idle, then one GET /api/v1/healthz\n`);
console.log('start  RSS MB  anon MB  file MB');
console.log('-----  ------  -------  -------');
const samples: number[] = [];
for (let i = 1; i <= REPEAT; i++) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
  const srv = await startServerProcess({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn' }, { extraFlags });
  try {
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const res = await fetch(`${srv.url}/api/v1/healthz`);
    if (!res.ok) throw new Error(`healthz answered ${res.status}`);
    await res.arrayBuffer();
    const rss = srv.rss();
    samples.push(rss);
    const fmt = (n: number) => (n / MB).toFixed(1).padStart(7);
    console.log(`${String(i).padStart(5)} ${fmt(rss)}  ${fmt(kb(srv.pid, 'RssAnon'))}  ${fmt(kb(srv.pid, 'RssFile'))}`);
  } finally {
    await srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
const sorted = [...samples].sort((a, b) => a - b);
const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
console.log(`\nmedian idle RSS: ${(median / MB).toFixed(1)} MB (goal < ${GOAL_MB} MB) ${median / MB < GOAL_MB ? 'MET' : 'NOT MET'}`);
