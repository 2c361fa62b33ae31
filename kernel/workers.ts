import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { projectPath } from './paths.js';

/** Where the compiled worker entries go (scripts/build-server.mjs builds one per `*-worker.ts`). */
export const COMPILED_WORKERS_DIR = projectPath('build', 'server', 'workers');

/**
 * A worker thread running `source` (a `*-worker.ts` module, given as its URL). From the sources
 * (tests, tsx) the worker registers tsx itself, because tsx's `--import` loader does not reach
 * worker threads on Node 20; from the compiled server (`npm start`) it runs the worker's own
 * compiled entry, `build/server/workers/<name>.js`, with no loader at all.
 */
export function startWorker(source: URL, options: Omit<WorkerOptions, 'eval'>): Worker {
  const name = source.pathname.split('/').pop()!.replace(/\.ts$/, '');
  if (!name.endsWith('-worker')) throw new Error(`a worker module's name ends with -worker: ${source.href}`);
  const fromSources = import.meta.url.endsWith('.ts');
  if (!fromSources) return new Worker(join(COMPILED_WORKERS_DIR, `${name}.js`), options);
  const tsx = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * A child process running `source` (a `*-worker.ts` module, given as its URL), with `execArgv`
 * (e.g. `--no-node-snapshot`) and nothing inherited from ours. From the sources (tests, tsx) it
 * runs the `.ts` file under tsx's loader; from the compiled server it runs
 * `build/server/workers/<name>.js` with no loader.
 */
export function forkWorker(source: URL, options: Omit<ForkOptions, 'execArgv'> & { execArgv?: string[] } = {}): ChildProcess {
  const name = source.pathname.split('/').pop()!.replace(/\.ts$/, '');
  if (!name.endsWith('-worker')) throw new Error(`a worker module's name ends with -worker: ${source.href}`);
  const execArgv = options.execArgv ?? [];
  const fromSources = import.meta.url.endsWith('.ts');
  if (!fromSources) return fork(join(COMPILED_WORKERS_DIR, `${name}.js`), [], { ...options, execArgv });
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  return fork(fileURLToPath(source), [], { ...options, execArgv: [...execArgv, '--import', tsx] });
}
