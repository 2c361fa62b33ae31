// The load's process holds nextTick's record shape too (see bench/lib/child.ts).
import '../../kernel/runtime/next-tick-shape.js';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServerProcess, type ServerProcess } from './server-process.js';

export interface Target {
  name: string;
  url: string;
  /** The server process's own CPU time (user + system), in microseconds. */
  cpu(): Promise<number>;
  /** The server's process id, for pinning it to a core. */
  pid?: number;
  stop(): Promise<void>;
}

const STARTUP_MS = 30_000;

/** A server started as `npm start` runs it (bench/lib/server-process.ts) as a load target: CPU read from /proc. */
export function processTarget(name: string, proc: ServerProcess): Target {
  return { name, url: proc.url, pid: proc.pid, cpu: async () => proc.cpu(), stop: () => proc.stop() };
}
const IPC_MS = 5_000;
const STOP_MS = 10_000;

/**
 * Forks `script` (relative to this folder) with `args`, under the same node flags as this
 * process (--no-node-snapshot --import tsx), and waits for it to report `{ url }` over IPC. The
 * server lives in its own process so the load generator does not share its event loop. The
 * child must answer the message `cpu` with `{ cpu: process.cpuUsage() }` and exit on `stop`.
 */
/** `env` is added to the child's environment (ours from the sources reads its SVC_* settings there: bench/lib/child.ts startOurs). */
export async function forkTarget(name: string, script: string, args: string[], env: Record<string, string> = {}): Promise<Target> {
  // BENCH_OURS_FLAGS: extra node flags for the `ours` server only (say --trace-deopt), for looking, not for results.
  // BENCH_BARE_FLAGS: the same for the baseline, to profile both sides alike.
  const extra = (name === 'ours' ? (process.env.BENCH_OURS_FLAGS ?? '') : name === 'bare' ? (process.env.BENCH_BARE_FLAGS ?? '') : '')
    .split(' ')
    .filter(Boolean);
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...extra],
    env: { ...process.env, ...env },
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: no URL within ${STARTUP_MS} ms`));
    }, STARTUP_MS);
    child.once('message', (msg) => {
      clearTimeout(timer);
      resolve((msg as { url: string }).url);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: exited with code ${code} before listening`));
    });
  });
  return {
    name,
    url,
    ...(child.pid ? { pid: child.pid } : {}),
    cpu: () =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no CPU reading within ${IPC_MS} ms`)), IPC_MS);
        child.once('message', (msg) => {
          clearTimeout(timer);
          const { cpu } = msg as { cpu: NodeJS.CpuUsage };
          resolve(cpu.user + cpu.system);
        });
        child.send('cpu');
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((res) => child.once('exit', () => res()));
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Ours as `npm start` runs it: the compiled server (build/server, built first, with npm start's
 * node flags) in a process of its own, CPU read from /proc, `env` added to its settings. With
 * BENCH_PROFILE (or BENCH_OURS=source) it runs from the sources under tsx instead, forked as
 * `script` with `args` (the profiler needs that child); tsx wraps every named closure in
 * esbuild's `__name()` and leaves npm start's flags out, so that costs more per request than
 * what users run.
 */
export async function oursTarget(script: string, args: string[], env: Record<string, string> = {}): Promise<Target> {
  if (process.env.BENCH_PROFILE || process.env.BENCH_OURS === 'source') return forkTarget('ours', script, args, env);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // BENCH_OURS_FLAGS (say `--cpu-prof --cpu-prof-dir=/tmp/cprof`) for looking into the compiled server, not for results.
  const extraFlags = (process.env.BENCH_OURS_FLAGS ?? '').split(' ').filter(Boolean);
  const proc = await startServerProcess({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false', ...env }, { extraFlags });
  const target = processTarget('ours', proc);
  return {
    ...target,
    async stop() {
      await target.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface LoadResult {
  /** Mean requests per second over the run. */
  rps: number;
  /** 99th-percentile latency, ms (autocannon's resolution is 1 ms). */
  p99: number;
  total: number;
  /** Server CPU (user + system) per answered request, µs: steadier than req/s on a busy machine. */
  cpuPerRequest: number;
  /** Non-2xx answers, socket errors and timeouts: a valid run has none. */
  failures: number;
}

/** What each request of a load asks: a path, fixed headers, or a hook that makes every request (say, another key each time). */
export interface LoadRequest {
  path: string;
  /** GET unless said (a write bench posts `body`). */
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: autocannon.Request) => autocannon.Request;
  /** 304 Not Modified is the answer asked for (a conditional GET), not a failure. */
  notModified?: boolean;
}

/** Loads `target` at `path` (or with `request`) with autocannon (in this process) for `duration` seconds. */
export async function load(target: Target, request: string | LoadRequest, opts: { connections: number; duration: number }): Promise<LoadResult> {
  const { path, headers, setupRequest, method, body, notModified } = typeof request === 'string' ? { path: request, notModified: false } : request;
  const before = await target.cpu();
  const r = await autocannon({
    url: target.url,
    connections: opts.connections,
    duration: opts.duration,
    requests: [
      { method: method ?? 'GET', path, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}), ...(setupRequest ? { setupRequest } : {}) },
    ],
  });
  const after = await target.cpu();
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    total: r.requests.total,
    cpuPerRequest: r.requests.total > 0 ? (after - before) / r.requests.total : 0,
    failures: r.non2xx - (notModified ? (r.statusCodeStats?.['304']?.count ?? 0) : 0) + r.errors + r.timeouts,
  };
}

/** A plain-text table: first column left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

/** Read before this process pins itself to one core (after that it sees only that one). */
const CORES = availableParallelism();

/**
 * The issue-12 method: the load generator (this process, autocannon in its event loop) on the
 * first core, every server on the last, so the two never take turns on one core; the databases
 * stay where the kernel puts them. Linux with taskset and 2+ cores; BENCH_PIN=0 turns it off.
 * Returns the line a bench prints about it.
 */
export function pinCores(targets: readonly Target[]): string {
  if (process.env.BENCH_PIN === '0') return 'cores: not pinned (BENCH_PIN=0)';
  if (CORES < 2 || process.platform !== 'linux') return `cores: not pinned (${CORES} core(s), ${process.platform})`;
  const last = String(CORES - 1);
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    for (const t of targets) if (t.pid) execFileSync('taskset', ['-a', '-p', '-c', last, String(t.pid)], { stdio: 'ignore' });
  } catch {
    return 'cores: not pinned (taskset failed)';
  }
  return `cores: load generator on core 0, servers on core ${last} (BENCH_PIN=0 to leave them free)`;
}
