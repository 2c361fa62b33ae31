import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { defineServiceRef, AppError, type Kernel } from '../../kernel/api.js';
import {
  DEFAULT_SOURCE_SETTINGS,
  MetaStoreGuard,
  parseSourceUrl,
  SourceFailure,
  SourceRegistry,
  testTarget,
  variantKey,
  type SourceDb,
  type SourceSettings,
  type SourceTarget,
  type TestSuccess,
} from '../../engine/sources/index.js';
import { connectionFailed, connectionUnavailable, metaStoreRefused } from './errors.js';
import type { ConnectionInfo, ConnectionRemover, ConnectionsProvides, CreateIntrospector, ReadSourceLimits, SourceDialect, SourceHandle } from './provides.js';
import { ConnectionRepository, overridesOf, toConnection, toInfo, type TestOutcome } from './repository.js';
import type { Connection, IntrospectionOutcome, Overrides } from './schemas.js';
import type { ConnectionRow } from './tables.js';

export const CONNECTIONS_CHANGED = 'connections.changed';

/** Parses a URL already checked by the route schema; a mismatch here is a 400 at `body.url`. */
export function targetOrRefuse(dialect: SourceDialect, url: string): SourceTarget {
  const parsed = parseSourceUrl(dialect, url);
  if (!parsed.ok) throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.url', code: 'custom', message: parsed.message }] });
  return parsed.target;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The service's own data directory (the embedded meta store, the secret) is never a source:
 * a data grant on such a connection would hand out sessions and password hashes.
 */
export function refuseOwnData(target: SourceTarget, dataDir: string): void {
  if (target.dialect !== 'sqlite') return;
  const own = realPath(dataDir);
  const file = realPath(target.file);
  if (file === own || file.startsWith(own + sep)) {
    throw new AppError('VALIDATION_FAILED', {
      issues: [{ path: 'body.url', code: 'custom', message: "That file is in the service's own data directory, which cannot be a connection." }],
    });
  }
}

/** The limits a connection's pool runs under: the defaults, then its overrides. */
export function settingsOf(row: Pick<ConnectionRow, 'dialect' | 'read_only'>, overrides: Overrides): SourceSettings {
  return {
    ...DEFAULT_SOURCE_SETTINGS,
    readOnly: Boolean(row.read_only),
    poolSize: row.dialect === 'sqlite' ? 1 : (overrides.poolSize ?? DEFAULT_SOURCE_SETTINGS.poolSize),
    statementTimeoutMs: overrides.statementTimeoutMs ?? DEFAULT_SOURCE_SETTINGS.statementTimeoutMs,
    defaultSchema: row.dialect === 'postgres' ? overrides.defaultSchema : null,
  };
}

/**
 * Connections to the operators' databases: what the routes do, and what other plugins use
 * (ConnectionsProvides). The pools live in a SourceRegistry keyed by connection id; a pool is
 * replaced when the row's URL or limits change, on this replica or another (the fingerprint of
 * the row is compared on every use).
 */
export class ConnectionsService implements ConnectionsProvides {
  readonly registry: SourceRegistry;
  readonly repo: ConnectionRepository;
  private readonly removers: ConnectionRemover[] = [];
  private introspector: CreateIntrospector | null = null;
  private readonly guard: MetaStoreGuard;
  /** Pools checked not to reach the meta store (each pool once: a changed URL is a new pool). */
  private readonly vetted = new WeakMap<SourceDb, Promise<void>>();
  /** Pools whose vetting has passed: `sourceNow` may hand them out without waiting. */
  private readonly passed = new WeakSet<SourceDb>();
  private readonly settingsByRow = new WeakMap<ConnectionRow, { settings: SourceSettings; fingerprint: string }>();

  constructor(private readonly kernel: Kernel) {
    // Health timing runs on the real clock: a frozen business clock (tests) must not freeze retries.
    this.registry = new SourceRegistry({ log: kernel.log });
    this.repo = new ConnectionRepository(kernel.meta, () => kernel.now());
    this.guard = new MetaStoreGuard(kernel.meta);
  }

  /** A row is kept between requests (K30): so are its settings and their fingerprint. */
  private settingsOf(row: ConnectionRow): { settings: SourceSettings; fingerprint: string } {
    let known = this.settingsByRow.get(row);
    if (!known) {
      const settings = settingsOf(row, overridesOf(row));
      this.settingsByRow.set(row, (known = { settings, fingerprint: fingerprint(row, settings) }));
    }
    return known;
  }

  private get box() {
    return this.kernel.secrets('connections');
  }

  // ---- ConnectionsProvides ----

  async info(connectionId: string): Promise<ConnectionInfo> {
    return toInfo(await this.repo.find(connectionId));
  }

  infoNow(connectionId: string): ConnectionInfo | undefined {
    const row = this.repo.peek(connectionId);
    return row ? toInfo(row) : undefined;
  }

  async list(): Promise<ConnectionInfo[]> {
    return (await this.repo.all()).map(toInfo);
  }

  source(connectionId: string): Promise<SourceHandle> {
    const now = this.sourceNow(connectionId);
    return now ? Promise.resolve(now) : this.openSource(connectionId);
  }

  /** `source` the long way: the row read, the pool acquired (checked when due) and vetted. */
  private async openSource(connectionId: string): Promise<SourceHandle> {
    const row = await this.repo.find(connectionId);
    const { settings, fingerprint } = this.settingsOf(row);
    return { info: toInfo(row), db: await this.openPool(connectionId, connectionId, row, settings, fingerprint) };
  }

  /** The pool under `key` (the connection's own, or a variant of it) acquired and vetted; a failure answered as the API's error. */
  private async openPool(connectionId: string, key: string, row: ConnectionRow, settings: SourceSettings, fingerprint: string): Promise<SourceDb> {
    try {
      const db = await this.registry.acquire(key, fingerprint, () => ({ target: this.storedTarget(row), settings }));
      await this.vet(connectionId, row, db);
      return db;
    } catch (err) {
      if (err instanceof SourceFailure && err.reason === 'meta-store') throw metaStoreRefused(err, connectionId);
      if (err instanceof SourceFailure) throw connectionUnavailable(connectionId, err);
      throw err;
    }
  }

  /**
   * A connection saved before the meta-store check existed (or whose server changed under the
   * same name since) is refused on use too: its pool is closed before anyone reads through it.
   */
  private async vet(connectionId: string, row: ConnectionRow, db: SourceDb): Promise<void> {
    let check = this.vetted.get(db);
    if (!check) {
      check = this.guard.refuse(db, row.dialect);
      this.vetted.set(db, check);
      // A check that failed is asked again by the next caller.
      check.then(
        () => this.passed.add(db),
        () => this.vetted.delete(db),
      );
    }
    try {
      await check;
    } catch (err) {
      if (err instanceof SourceFailure && err.reason === 'meta-store') await this.registry.close(connectionId);
      throw err;
    }
  }

  /**
   * `source`'s answer when every part of it is at hand (the row read, the pool open and lately
   * checked, its vetting passed), without an async step; undefined when only `source` can tell.
   * Every /data request and public read asks.
   */
  private sourceNow(connectionId: string): SourceHandle | undefined {
    const row = this.repo.peek(connectionId);
    if (!row) return undefined;
    const db = this.registry.acquireNow(connectionId, this.settingsOf(row).fingerprint);
    return db && this.passed.has(db) ? { info: toInfo(row), db } : undefined;
  }

  withSource<T>(connectionId: string, fn: (db: SourceDb, info: ConnectionInfo) => Promise<T>): Promise<T> {
    const now = this.sourceNow(connectionId);
    if (now) return this.runOn(connectionId, connectionId, now, fn);
    return this.openSource(connectionId).then((handle) => this.runOn(connectionId, connectionId, handle, fn));
  }

  async withReadSource<T>(connectionId: string, limits: ReadSourceLimits, fn: (db: SourceDb, info: ConnectionInfo) => Promise<T>): Promise<T> {
    const row = this.repo.peek(connectionId) ?? (await this.repo.find(connectionId));
    const ms = Math.max(1, Math.trunc(limits.statementTimeoutMs));
    const key = variantKey(connectionId, `read ${ms}`);
    const own = this.settingsOf(row);
    const settings: SourceSettings = { ...own.settings, readOnly: true, statementTimeoutMs: ms };
    const fingerprint = `${own.fingerprint} read ${ms}`;
    const ready = this.registry.acquireNow(key, fingerprint);
    const db = ready && this.passed.has(ready) ? ready : await this.openPool(connectionId, key, row, settings, fingerprint);
    return this.runOn(connectionId, key, { info: toInfo(row), db }, fn);
  }

  /** `fn` on a pool (`key`: the connection's own, or a variant of it), a lost database answered as 503. */
  private async runOn<T>(connectionId: string, key: string, { db, info }: SourceHandle, fn: (db: SourceDb, info: ConnectionInfo) => Promise<T>): Promise<T> {
    try {
      return await fn(db, info);
    } catch (err) {
      const failure = err instanceof AppError ? null : await this.registry.reportError(key, err);
      if (failure) throw connectionUnavailable(connectionId, failure);
      throw err;
    }
  }

  // ---- what the routes do ----

  async get(id: string): Promise<Connection> {
    return toConnection(await this.repo.find(id));
  }

  /**
   * Saves a tested connection, then reads its schema so it can be used at once (a failure there
   * is answered, not thrown: the connection stays saved).
   */
  async create(input: {
    name: string;
    dialect: SourceDialect;
    url: string;
    readOnly?: boolean | undefined;
  }): Promise<{ connection: Connection; introspection: IntrospectionOutcome | null }> {
    await this.repo.assertNameFree(input.name);
    const target = targetOrRefuse(input.dialect, input.url);
    const result = await this.testOrRefuse(target, Boolean(input.readOnly));
    const row = await this.repo.insert({
      name: input.name,
      dialect: input.dialect,
      urlSealed: this.box.encrypt(input.url),
      target,
      readOnly: Boolean(input.readOnly),
      test: { ok: true, result },
    });
    await this.changed(row.id, 'created');
    return { connection: toConnection(row), introspection: await this.introspectNew(row.id) };
  }

  introspectOnCreate(introspect: CreateIntrospector): void {
    this.introspector = introspect;
  }

  private async introspectNew(id: string): Promise<IntrospectionOutcome | null> {
    if (!this.introspector) return null;
    try {
      const s = await this.introspector(id);
      return { ok: true, snapshot: { id: s.snapshotId, tableCount: s.tableCount, viewCount: s.viewCount, columnCount: s.columnCount }, error: null };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, snapshot: null, error: { code: err.code, message: err.message } };
      // Not ours to explain: logged for the operator, answered as INTERNAL like any other bug.
      this.kernel.log.error({ connectionId: id, err: { message: err instanceof Error ? err.message : String(err) } }, 'introspecting a new connection failed');
      return { ok: false, snapshot: null, error: { code: 'INTERNAL', message: 'Reading the schema failed; POST /connections/{id}/introspect tries again.' } };
    }
  }

  /** A new URL is tested before it is stored, and closes the pool on the old one. */
  async update(
    id: string,
    patch: { name?: string | undefined; url?: string | undefined; readOnly?: boolean | undefined },
  ): Promise<{ before: Connection; after: Connection }> {
    const row = await this.repo.find(id);
    if (patch.name !== undefined) await this.repo.assertNameFree(patch.name, id);
    let url: { sealed: string; target: SourceTarget; test: TestOutcome } | undefined;
    if (patch.url !== undefined) {
      const target = targetOrRefuse(row.dialect, patch.url);
      const result = await this.testOrRefuse(target, patch.readOnly ?? Boolean(row.read_only));
      url = { sealed: this.box.encrypt(patch.url), target, test: { ok: true, result } };
    }
    await this.repo.update(id, { name: patch.name, readOnly: patch.readOnly, url });
    if (url || (patch.readOnly !== undefined && patch.readOnly !== Boolean(row.read_only))) await this.registry.close(id);
    const after = await this.repo.find(id);
    await this.changed(id, 'updated');
    return { before: toConnection(row), after: toConnection(after) };
  }

  onRemove(remove: ConnectionRemover): void {
    this.removers.push(remove);
  }

  /** The connection and what other plugins keep about it, in one meta-store transaction; then its pool closes. */
  async remove(id: string): Promise<{ connection: Connection; removed: Record<string, number> }> {
    const row = await this.repo.find(id);
    const removed: Record<string, number> = {};
    await this.kernel.db.transaction().execute(async (trx) => {
      for (const remove of this.removers) {
        for (const [what, n] of Object.entries(await remove(id, trx))) if (n > 0) removed[what] = (removed[what] ?? 0) + n;
      }
      await this.repo.remove(id, trx);
    });
    await this.registry.close(id);
    await this.changed(id, 'deleted');
    return { connection: toConnection(row), removed };
  }

  /** An unsaved URL: nothing is stored. */
  async testUnsaved(dialect: SourceDialect, url: string, readOnly: boolean): Promise<TestSuccess> {
    return this.testOrRefuse(targetOrRefuse(dialect, url), readOnly);
  }

  /**
   * A stored connection, on a connection of its own (not the pool, so the answer is about the
   * database now). The outcome is kept as lastTest either way; a success lets the pool try
   * again at once instead of waiting out a remembered failure.
   */
  async testStored(id: string): Promise<TestSuccess> {
    const row = await this.repo.find(id);
    let result: TestSuccess;
    try {
      result = await testTarget(this.storedTarget(row), { readOnly: Boolean(row.read_only), inspect: this.inspector(row.dialect) });
    } catch (err) {
      if (!(err instanceof SourceFailure)) throw err;
      await this.repo.recordTest(id, { ok: false, reason: err.reason });
      if (err.reason === 'meta-store') {
        await this.registry.close(id);
        throw metaStoreRefused(err, id);
      }
      throw connectionFailed(err);
    }
    await this.repo.recordTest(id, { ok: true, result });
    this.registry.recheck(id);
    return result;
  }

  async overrides(id: string): Promise<{ row: ConnectionRow; overrides: Overrides }> {
    const row = await this.repo.find(id);
    return { row, overrides: overridesOf(row) };
  }

  /** Replaces the whole set; new pool limits take effect with the next use (the pool is replaced). */
  async setOverrides(id: string, next: Overrides): Promise<{ row: ConnectionRow; before: Overrides; after: Overrides }> {
    const row = await this.repo.find(id);
    const before = overridesOf(row);
    await this.repo.setOverrides(id, next);
    const after = await this.repo.find(id);
    if (fingerprint(row, settingsOf(row, before)) !== fingerprint(after, settingsOf(after, next))) await this.registry.close(id);
    await this.changed(id, 'updated');
    return { row: after, before, after: next };
  }

  async close(): Promise<void> {
    await this.registry.closeAll();
  }

  private async testOrRefuse(target: SourceTarget, readOnly: boolean): Promise<TestSuccess> {
    refuseOwnData(target, this.kernel.config.dataDir);
    try {
      return await testTarget(target, { readOnly, inspect: this.inspector(target.dialect) });
    } catch (err) {
      if (err instanceof SourceFailure && err.reason === 'meta-store') throw metaStoreRefused(err);
      if (err instanceof SourceFailure) throw connectionFailed(err);
      throw err;
    }
  }

  private inspector(dialect: SourceDialect): (db: SourceDb) => Promise<void> {
    return (db) => this.guard.refuse(db, dialect);
  }

  /** The stored URL, opened. A box that cannot open it means SVC_SECRET changed since it was saved. */
  private storedTarget(row: ConnectionRow): SourceTarget {
    let url: string;
    try {
      url = this.box.decrypt(row.url_sealed);
    } catch {
      throw new SourceFailure('unknown', 'The stored URL cannot be decrypted (was SVC_SECRET changed?); save the connection URL again.');
    }
    const parsed = parseSourceUrl(row.dialect, url);
    if (!parsed.ok) throw new SourceFailure('invalid-url', parsed.message);
    return parsed.target;
  }

  private async changed(id: string, change: 'created' | 'updated' | 'deleted'): Promise<void> {
    await this.kernel.events.publish(CONNECTIONS_CHANGED, { id, change });
  }
}

/** Changes whenever the pool would have to be opened differently. The sealed URL changes with the URL. */
function fingerprint(row: ConnectionRow, settings: SourceSettings): string {
  return createHash('sha256').update(row.url_sealed).update('\0').update(JSON.stringify(settings)).digest('base64url');
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const connectionsServiceRef = defineServiceRef<ConnectionsService>('connections');
