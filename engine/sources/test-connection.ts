import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { driverFor } from './dialects/index.js';
import { withDeadline } from '../../kernel/deadline.js';
import { SourceFailure, toFailure } from './failure.js';
import { DEFAULT_SOURCE_SETTINGS, type SourceDb, type SourceDialect, type SourceSettings, type SourceTarget } from './types.js';
import { parseSourceUrl } from './url.js';

export interface TestSuccess {
  /** One round trip of a trivial query on the new connection, connecting and signing in excluded. */
  latencyMs: number;
  serverVersion: string;
}

/**
 * Connects once, reads the server's version and times a round trip; throws a SourceFailure
 * with a reason a person can act on, always within the connect timeout. Never creates a
 * SQLite file. Nothing it throws carries the URL or the password.
 */
export async function testConnection(
  dialect: SourceDialect,
  url: string,
  opts: Partial<Pick<SourceSettings, 'connectTimeoutMs' | 'readOnly'>> = {},
): Promise<TestSuccess> {
  const parsed = parseSourceUrl(dialect, url);
  if (!parsed.ok) throw new SourceFailure('invalid-url', parsed.message);
  return testTarget(parsed.target, opts);
}

export interface TestOptions extends Partial<Pick<SourceSettings, 'connectTimeoutMs' | 'readOnly'>> {
  /**
   * Runs on the open connection after it answered, within the same deadline; what it throws is
   * thrown as it is (it classifies its own errors).
   */
  inspect?: (db: SourceDb) => Promise<void>;
}

export async function testTarget(target: SourceTarget, opts: TestOptions = {}): Promise<TestSuccess> {
  const driver = driverFor(target);
  const { inspect, ...limits } = opts;
  const settings: SourceSettings = { ...DEFAULT_SOURCE_SETTINGS, ...limits, poolSize: 1 };
  const secrets = target.dialect === 'sqlite' ? [] : [target.password];
  const pre = driver.precheck?.(target);
  if (pre) throw new SourceFailure(pre);
  const db = driver.open(target, settings, () => undefined);
  let inspected: unknown = null;
  const work = (async () => {
    const serverVersion = await driver.serverVersion(db);
    const started = performance.now();
    await sql`select 1`.execute(db);
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    if (inspect) {
      try {
        await inspect(db);
      } catch (err) {
        inspected = err;
        throw err;
      }
    }
    return { latencyMs, serverVersion };
  })();
  let done = false;
  try {
    const result = await withDeadline(
      work,
      settings.connectTimeoutMs,
      () => new SourceFailure('timeout', `The database did not answer within ${settings.connectTimeoutMs / 1000} s.`),
    );
    done = true;
    return result;
  } catch (err) {
    if (inspected !== null && err === inspected) throw err;
    throw toFailure(driver.classify(err), err, secrets);
  } finally {
    // After a failure a connect may still be pending; its own timeout ends it, nobody waits for it.
    const closing = db.destroy().catch(() => undefined);
    if (done) await closing;
  }
}
