import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

const FILE = 'instance.json';

interface InstanceRecord {
  instanceId: string;
  pid: number;
  host: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user holds that pid, alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Records this process as the data directory's instance and answers the instance id of the
 * process recorded before it when that one is gone: same host, its pid no longer running (MR3).
 * A lease that dead process held is no other replica's. Null when there is none, when it may
 * still run (another process on the same directory, or a pid taken again), or on another host.
 */
export function recordInstance(dataDir: string, instanceId: string): string | null {
  const path = join(dataDir, FILE);
  let before: InstanceRecord | null = null;
  try {
    before = JSON.parse(readFileSync(path, 'utf8')) as InstanceRecord;
  } catch {
    before = null;
  }
  const dead =
    before &&
    typeof before.instanceId === 'string' &&
    Number.isInteger(before.pid) &&
    before.host === hostname() &&
    before.pid !== process.pid &&
    !alive(before.pid)
      ? before.instanceId
      : null;
  try {
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ instanceId, pid: process.pid, host: hostname() } satisfies InstanceRecord), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // A read-only data directory: no record, so a dead process's lease is waited out.
  }
  return dead;
}
