import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const STARTUP_MS = 60_000;

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident memory now, in bytes (VmRSS). */
  rss(): number;
  /** The highest resident memory since the last `resetPeak` (VmHWM), in bytes. */
  peakRss(): number;
  /** Starts a new peak from the present (Linux: /proc/<pid>/clear_refs). */
  resetPeak(): void;
  /** Resident memory now split by kind (/proc/<pid>/smaps_rollup), in bytes: anonymous (heaps) and file-backed (mapped files). */
  memory(): { rss: number; anon: number; file: number };
  /** The process's CPU time so far (user + system), in microseconds (/proc/<pid>/stat, 10 ms resolution). */
  cpu(): number;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} for process ${pid}`);
  return Number(m[1]) * 1024;
}

function memoryOf(pid: number): { rss: number; anon: number; file: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  const rss = kb('Rss');
  const anon = kb('Anonymous');
  return { rss, anon, file: rss - anon };
}

/** Linux reports CPU time in clock ticks; 100 a second on every kernel this runs on (`getconf CLK_TCK`). */
const TICK_MICROS = 10_000;

function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return (utime + stime) * TICK_MICROS;
}

let built = false;

/** `npm run build:server` once per bench process: the server as `npm start` runs it (decisions K23). */
export function buildServer(): void {
  // BENCH_SERVER_ENTRY runs a server built earlier (say, a copy of build/server of another commit, for alternated runs).
  if (built || process.env.BENCH_SERVER_ENTRY) return;
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  built = true;
}

/** `npm start`'s node flags and entry, read from package.json so that a bench runs what it runs. */
export function startCommand(): { flags: string[]; entry: string } {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return { flags: words.slice(1, -1), entry: words[words.length - 1]! };
}

/**
 * The server as `npm start` runs it (`node --no-node-snapshot --enable-source-maps
 * build/server/main.js`, built first), in a process of its own, so what a bench reads of its
 * memory is the server's alone: not the bench's drivers, files and buffers.
 */
export async function startServerProcess(env: Record<string, string>, opts: { extraFlags?: string[]; entry?: string } = {}): Promise<ServerProcess> {
  buildServer();
  const port = await freePort();
  const { flags, entry: startEntry } = startCommand();
  // `opts.entry`: another build of the server beside this one (say, a copy of build/server before a change, bench/widgets.ts BENCH_BEFORE_ENTRY).
  const entry = opts.entry ?? process.env.BENCH_SERVER_ENTRY ?? startEntry;
  const child: ChildProcess = spawn(process.execPath, [...flags, ...(opts.extraFlags ?? []), entry], {
    cwd: ROOT,
    env: { ...process.env, SVC_HOST: '127.0.0.1', SVC_PORT: String(port), SVC_LOG_LEVEL: 'warn', ...env },
    // BENCH_SERVER_STDOUT=1 shows the server's stdout (its log, --trace-gc), for looking into a result.
    stdio: ['ignore', process.env.BENCH_SERVER_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} before listening`);
    const up = await fetch(`${url}/api/v1/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer within ${STARTUP_MS} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    rss: () => status(pid, 'VmRSS'),
    peakRss: () => status(pid, 'VmHWM'),
    resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    memory: () => memoryOf(pid),
    cpu: () => cpuMicros(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((res) => child.once('exit', () => res()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
