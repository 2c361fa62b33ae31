import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { FAST_JOBS, jobTestPlugin } from '../../test/jobs/job-plugin.js';

const available = { sqlite: true, postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };
const CHILD = fileURLToPath(new URL('../../test/jobs/kill-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the child, waits for its two job ids (both running, with progress), then SIGKILLs it. */
function runAndKill(env: Record<string, string>): Promise<{ retried: string; once: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', CHILD], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let ids: { retried: string; once: string } | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && !ids) {
        ids = JSON.parse(line);
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (ids && signal === 'SIGKILL') resolve(ids);
      else reject(new Error(`child ended (${signal}) without reporting its jobs: ${out}`));
    });
  });
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('a process killed with SIGKILL in the middle of its jobs (%s meta store)', (meta) => {
  describe.runIf(available[meta])(`${meta} store`, () => {
    let dataDir: string | null = null;
    let temp: TempDatabase | null = null;
    let inst: TestInstance | null = null;
    afterEach(async () => {
      await inst?.close();
      await temp?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('leaves no job running forever: the next instance requeues and finishes one, fails the one out of attempts', { timeout: 90_000 }, async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'svc-jobs-kill-'));
      temp = meta === 'sqlite' ? null : await createTempDatabase(meta);
      const env: Record<string, string> = { SVC_DATA_DIR: dataDir, ...(temp ? { SVC_META_URL: temp.url } : {}) };
      const { retried, once } = await runAndKill(env);

      inst = await startInstance({ ...(temp ? { metaUrl: temp.url } : {}), env: { SVC_DATA_DIR: dataDir }, plugins: [jobTestPlugin()], jobs: FAST_JOBS });
      const jobs = inst.app.kernel.jobs;
      // The child's lease (1 s) runs out; the new instance's reaper moves both jobs on.
      expect(await jobs.waitFor(retried, 20_000)).toMatchObject({ state: 'succeeded', attempts: 2, result: { counted: 20 }, error: null });
      expect(await jobs.waitFor(once, 20_000)).toMatchObject({
        state: 'failed',
        attempts: 1,
        maxAttempts: 1,
        error: { code: 'JOB_LOST', message: 'The process running this job stopped before the job finished.' },
      });
      const stillRunning = await inst.app.kernel.db.selectFrom('jobs').select('id').where('state', '=', 'running').execute();
      expect(stillRunning).toEqual([]);
    });
  });
});
