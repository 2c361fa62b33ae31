/**
 * The server side of a bench: a forked child (bench/lib/harness.ts forkTarget) that starts one
 * server, reports its URL over IPC, answers `cpu` with its own CPU time, and stops when the
 * parent says `stop` or goes away. With BENCH_PROFILE=<dir> it also writes a profile of itself
 * under load (see cpuProfiler).
 */
// Every bench process (the load's and both servers') holds nextTick's record shape, so neither side
// of a ratio drifts into V8's slow path for it at a random moment (decisions K38, bench/README).
import '../../kernel/runtime/next-tick-shape.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { VERSION } from '../../kernel/version.js';
import { EVERY_ANSWER } from '../../kernel/http/security-headers.js';
import { requestIds } from '../../kernel/ids.js';

let lastKernel: import('../../kernel/kernel-services.js').Kernel | null = null;

/** The kernel of the instance startOurs started last in this process (benches that call it directly). */
export function servedKernel(): import('../../kernel/kernel-services.js').Kernel {
  if (!lastKernel) throw new Error('startOurs has not started an instance in this process');
  return lastKernel;
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/**
 * Our real instance: createApp with firstPartyPlugins, a SQLite meta store in a temp data dir,
 * SVC_LOG_LEVEL=silent, SVC_NETWORK_FEATURES=false, on an ephemeral loopback port; `env` adds
 * or overrides settings. The kernel is imported here, so a bare server's process never loads it.
 */
export async function startOurs(env: Record<string, string> = {}): Promise<Served> {
  const [{ createApp }, { loadConfig }, { firstPartyPlugins }] = await Promise.all([
    import('../../kernel/app.js'),
    import('../../kernel/config.js'),
    import('../../plugins/index.js'),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_LOG_LEVEL: 'silent',
    SVC_NETWORK_FEATURES: 'false',
    // Settings given to this process (forkTarget's env), then the caller's.
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('SVC_') && e[1] !== undefined)),
    ...env,
  });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  const url = await app.listen();
  lastKernel = app.kernel;
  return {
    url,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare fastify app (no logger, no plugins) with the routes `routes` adds, on an ephemeral loopback port; `onClose` runs after it closes. */
export async function startBare(routes: (app: FastifyInstance) => void, onClose?: () => Promise<unknown>): Promise<Served> {
  const app = Fastify({ logger: false });
  routes(app);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    async close() {
      await app.close();
      await onClose?.();
    },
  };
}

/**
 * A bare route at `path` answering healthz's body ({ ok, version, uptime }). With `headers`, it
 * also sends the headers every API answer of ours carries (the fixed ones, a request id,
 * `no-store`), set in the handler: the bytes ours writes, without the kernel around them.
 */
export function bareHealthz(app: FastifyInstance, path: string, opts: { headers?: boolean } = {}): void {
  const startedAt = Date.now();
  const body = () => ({ ok: true as const, version: VERSION, uptime: Math.max(0, (Date.now() - startedAt) / 1000) });
  if (!opts.headers) {
    app.get(path, async () => body());
    return;
  }
  const nextId = requestIds();
  app.get(path, async (_req, reply) => {
    reply.headers(EVERY_ANSWER);
    reply.header('x-request-id', nextId());
    reply.header('cache-control', 'no-store');
    return body();
  });
}

/**
 * BENCH_PROFILE=<dir>: each server writes `<dir>/<kind>.cpuprofile`, a V8 CPU profile from the
 * first load (the first CPU reading) to the end, so start-up and set-up stay out of it, which
 * `node --cpu-prof` would mix in. Warm-ups are in it; idle time is marked as such.
 * BENCH_HEAP=1: sampled allocations instead (`<kind>.heapprofile`).
 */
export async function cpuProfiler(dir: string, kind: string): Promise<{ start(): void; stop(): Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  const heap = process.env.BENCH_HEAP === '1';
  await session.post(heap ? 'HeapProfiler.enable' : 'Profiler.enable');
  let started: Promise<void> | null = null;
  return {
    start() {
      started ??= heap
        ? session.post('HeapProfiler.startSampling', {
            samplingInterval: 1024,
            includeObjectsCollectedByMinorGC: true,
            includeObjectsCollectedByMajorGC: true,
          } as never)
        : session.post('Profiler.start');
    },
    async stop() {
      if (!started) return;
      await started;
      mkdirSync(dir, { recursive: true });
      if (heap) {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        writeFileSync(join(dir, `${kind}.heapprofile`), JSON.stringify(profile));
        return;
      }
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${kind}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

/** Runs this process as a bench's server of `kind` (the name of its profile), started by `start`. */
export async function serveChild(kind: string, start: () => Promise<Served>): Promise<void> {
  if (!process.send) throw new Error(`${process.argv[1] ?? 'this file'} ${kind} runs as a forked child of a bench (bench/lib/harness.ts forkTarget)`);
  const served = await start();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await profiler?.stop();
    await served.close().catch(() => undefined);
    process.exit(0);
  };
  const profiler = process.env.BENCH_PROFILE ? await cpuProfiler(process.env.BENCH_PROFILE, kind) : null;
  process.on('message', (msg) => {
    if (msg === 'stop') void stop();
    // The parent reads this process's CPU time around each run to get CPU per request.
    if (msg === 'cpu') {
      profiler?.start();
      process.send?.({ cpu: process.cpuUsage() });
    }
  });
  process.on('disconnect', () => void stop());
  process.send({ url: served.url });
}

/**
 * The entry of a bench file that forks itself: with `ours` or `bare` (then `args`) on the
 * command line this process becomes that server; otherwise it runs `parent`, the bench, and
 * exits 0, or 1 with its error.
 */
export async function benchMain(
  name: string,
  servers: Record<'ours' | 'bare', (args: string[]) => Promise<Served>>,
  parent: () => Promise<void>,
): Promise<void> {
  const [kind, ...args] = process.argv.slice(2);
  if (kind === 'ours' || kind === 'bare') return serveChild(kind, () => servers[kind](args));
  await parent().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`${name} bench failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
