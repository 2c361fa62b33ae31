import { sql } from 'kysely';
import type { Logger } from '../../kernel/logger.js';
import { driverFor } from './dialects/index.js';
import { withDeadline } from '../../kernel/deadline.js';
import { errorCode, SourceFailure, toFailure, type FailureReason } from './failure.js';
import type { SourceDb, SourceDriver, SourceSettings, SourceTarget } from './types.js';

const VARIANT = '\u0000';

/**
 * The key of a second pool of connection `id` whose sessions differ (read-only, another
 * statement timeout): kept apart from the connection's own pool, closed with it.
 */
export const variantKey = (id: string, variant: string): string => id + VARIANT + variant;

export interface SourceSpec {
  target: SourceTarget;
  settings: SourceSettings;
}

export interface SourceRegistryOptions {
  log: Logger;
  now?: () => number;
  /**
   * A pool whose check passed this recently is handed out without asking again. Only checks
   * count, not queries that worked: a SQLite handle keeps reading a file that was moved away.
   */
  freshMs?: number;
  /** After a failed check, callers are refused at once for this long before the next try. */
  retryMs?: number;
  /** A pool nobody asked for this long is closed (a connection deleted on another replica, say). */
  idlePoolMs?: number;
}

interface Entry {
  fingerprint: string;
  spec: SourceSpec;
  driver: SourceDriver;
  db: SourceDb;
  identity: string | null;
  okAt: number;
  failure: SourceFailure | null;
  failedAt: number;
  usedAt: number;
  checking: Promise<void> | null;
}

/**
 * One pool per connection id. A pool is opened on first use, replaced when the connection's
 * settings change (its fingerprint), closed when asked or when long unused. While a database
 * is down, `acquire` refuses with a SourceFailure; it tries again by itself after `retryMs`,
 * so a database that comes back is used again without anyone acting.
 */
export class SourceRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly freshMs: number;
  private readonly retryMs: number;
  private readonly idlePoolMs: number;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly opts: SourceRegistryOptions) {
    this.now = opts.now ?? Date.now;
    this.freshMs = opts.freshMs ?? 2000;
    this.retryMs = opts.retryMs ?? 1000;
    this.idlePoolMs = opts.idlePoolMs ?? 10 * 60_000;
  }

  /** `acquire`'s pool when it answers at once (open, same settings, checked within `freshMs`); undefined otherwise. */
  acquireNow(id: string, fingerprint: string): SourceDb | undefined {
    const entry = this.entries.get(id);
    if (!entry || entry.fingerprint !== fingerprint) return undefined;
    const now = this.now();
    if (now - entry.okAt >= this.freshMs) return undefined;
    entry.usedAt = now;
    return entry.db;
  }

  /** The pool for `id`; `spec` is read only when a pool has to be opened. */
  async acquire(id: string, fingerprint: string, spec: () => SourceSpec): Promise<SourceDb> {
    const ready = this.acquireNow(id, fingerprint);
    if (ready) return ready;
    let entry = this.entries.get(id);
    if (entry && entry.fingerprint !== fingerprint) {
      this.drop(id);
      entry = undefined;
    }
    // Not checked lately (acquireNow answered the rest): ask the database, or repeat its failure.
    entry ??= this.open(id, fingerprint, spec());
    entry.usedAt = this.now();
    if (entry.failure && this.now() - entry.failedAt < this.retryMs) throw entry.failure;
    const e = entry;
    await (e.checking ??= this.check(id, e).finally(() => (e.checking = null)));
    const current = this.entries.get(id);
    if (!current) throw new SourceFailure('unknown', 'The connection was closed while it was being opened.');
    if (current.failure && current.okAt < current.failedAt) throw current.failure;
    return current.db;
  }

  /**
   * Classifies an error a caller met while using the pool: a reason when it means the database
   * cannot be reached, null for an ordinary query error. The words of one failed statement are
   * not enough to refuse everyone else (a bind PostgreSQL cannot read answers 08P01, "protocol
   * violation", on a healthy connection): the database is asked once more, and only when that
   * check fails too is the connection held unreachable until its next successful check.
   */
  async reportError(id: string, err: unknown): Promise<SourceFailure | null> {
    const entry = this.entries.get(id);
    if (!entry) return null;
    if (!runtimeReason(entry.driver, err)) return null;
    await (entry.checking ??= this.check(id, entry).finally(() => (entry.checking = null)));
    const current = this.entries.get(id);
    if (!current?.failure || current.okAt >= current.failedAt) return null;
    return current.failure;
  }

  /** Forget a remembered failure (a fresh test just reached the database): the next use checks at once. */
  recheck(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.okAt = 0;
    entry.failure = null;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Closes the pool of `id` and its variants (`variantKey(id, …)`); connections in use finish
   * their statement first.
   */
  async close(id: string): Promise<void> {
    const closing: Array<Promise<void>> = [];
    for (const [key, entry] of this.entries) {
      if (key !== id && !key.startsWith(id + VARIANT)) continue;
      this.entries.delete(key);
      closing.push(this.destroy(key, entry));
    }
    await Promise.all(closing);
  }

  async closeAll(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const all = [...this.entries];
    this.entries.clear();
    await Promise.all(all.map(([id, entry]) => this.destroy(id, entry)));
  }

  private open(id: string, fingerprint: string, spec: SourceSpec): Entry {
    const driver = driverFor(spec.target);
    const onLost = (err: unknown) => {
      const entry = this.entries.get(id);
      if (entry) entry.okAt = 0; // ask the database before the next use
      this.opts.log.warn({ connectionId: id, code: errorCode(err) ?? null }, 'connection to a source database lost');
    };
    const entry: Entry = {
      fingerprint,
      spec,
      driver,
      db: driver.open(spec.target, spec.settings, onLost),
      identity: driver.identity?.(spec.target) ?? null,
      okAt: 0,
      failure: null,
      failedAt: 0,
      usedAt: this.now(),
      checking: null,
    };
    this.entries.set(id, entry);
    this.startSweeper();
    return entry;
  }

  private async check(id: string, entry: Entry): Promise<void> {
    const { driver, spec } = entry;
    const pre = driver.precheck?.(spec.target);
    if (pre) {
      entry.failure = new SourceFailure(pre);
      entry.failedAt = this.now();
      entry.okAt = 0;
      return;
    }
    let target = entry;
    if (driver.identity && driver.identity(spec.target) !== entry.identity) {
      // The SQLite file was replaced (restored from a backup, say): the open handle still reads the old one.
      this.drop(id);
      target = this.open(id, entry.fingerprint, spec);
    }
    try {
      await withDeadline(sql`select 1`.execute(target.db), spec.settings.connectTimeoutMs, () => new SourceFailure('timeout'));
      target.okAt = this.now();
      target.failure = null;
    } catch (err) {
      target.failure = toFailure(driver.classify(err) ?? 'unknown', err, secretsOf(spec.target));
      target.failedAt = this.now();
      target.okAt = 0;
    }
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    void this.destroy(id, entry);
  }

  private async destroy(id: string, entry: Entry): Promise<void> {
    await entry.db.destroy().catch((err: unknown) => this.opts.log.warn({ connectionId: id, code: errorCode(err) ?? null }, 'closing a source pool failed'));
  }

  private startSweeper(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const cutoff = this.now() - this.idlePoolMs;
        for (const [id, entry] of this.entries) if (entry.usedAt < cutoff && !entry.checking) this.drop(id);
      },
      Math.min(60_000, this.idlePoolMs),
    );
    this.sweeper.unref();
  }
}

/** At run time, permission errors are ordinary query errors (a table the user may not read). */
function runtimeReason(driver: SourceDriver, err: unknown): FailureReason | null {
  const reason = err instanceof SourceFailure ? err.reason : driver.classify(err);
  return reason === 'permission-denied' ? null : reason;
}

function secretsOf(target: SourceTarget): Array<string | null> {
  return target.dialect === 'sqlite' ? [] : [target.password];
}
