import { chmodSync, existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { runMigrations, type PluginMigrations } from './migrate.js';
import { finishRename, writePlacement, type PlacementRecord, type PreviousPlacement } from './placement-file.js';
import { openStore, type MetaStore, type OpenedStore, type Placement } from './store.js';
import type { Dialect } from './types.js';
import { ANY_TABLE, MetaWrites, type MetaWrite } from './write-watch.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- tables are copied by name, whatever their shape */
type AnyDb = Kysely<any>;
type Row = Record<string, unknown>;

/** Where to move the meta store: a server URL, or the embedded file. */
export type RelocationTarget = { url: string } | { embedded: true };

export interface TableReport {
  name: string;
  rows: number;
  copied: number;
  checksum: string;
  /** Rows written again after the copy, in the catch-up passes and the freeze (changed while the copy ran). */
  recopied: number;
  /** Times the table was read again whole after the copy: a write that did not tell its rows, or a count that did not add up (MR4). */
  readWhole: number;
}

export interface RelocationResult {
  dryRun: boolean;
  from: Placement;
  to: Placement;
  tables: TableReport[];
  rows: number;
  copyMs: number;
  /** The catch-up passes between the copy and the freeze (MR4). */
  catchUpMs: number;
  freezeMs: number;
}

export type RelocationPhase = 'checking' | 'migrating' | 'copying' | 'freeze' | 'done' | 'failed';

export interface RelocationStatus {
  jobId: string | null;
  phase: RelocationPhase;
  dryRun: boolean;
  to: Placement;
  tables: Array<{ name: string; rows: number; copied: number }>;
  freezeMs: number | null;
  error: string | null;
}

/** The target could not be reached or opened: the plugin turns `cause` into C3's reasons. */
export class TargetConnectFailure extends Error {
  override name = 'TargetConnectFailure';
  constructor(
    readonly dialect: Dialect,
    cause: unknown,
  ) {
    super(`The target refused a connection: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** A relocation that failed before its swap: the message says why and what the target holds. */
export class RelocationFailed extends Error {
  override name = 'RelocationFailed';
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

const scrubUrls = (text: string) => text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]*/gi, '[url]').slice(0, 600);

export interface RelocatorDeps {
  store: MetaStore;
  dataDir: string;
  secret: string;
  log: Logger;
  instanceId: string;
  /** The instance id of this data directory's previous process, known dead (its leases are no replica's). */
  previousLife?: string | null;
  now: () => number;
  /** Whether `SVC_META_URL` decided the store at start. */
  urlFromEnv: boolean;
  migrations: () => readonly PluginMigrations[];
  /** The placement recorded at start (its `previous`). */
  previous: PreviousPlacement | null;
  /** When another instance was last heard on the event bridge (null: never). */
  otherInstanceSeenAt: () => number | null;
  /** After a swap: PostgreSQL's LISTEN/NOTIFY for this store (null: no bridge). */
  bridgeTo: (url: string | null, dialect: Dialect) => Promise<void>;
  /** Empties the principal cache and every read cache (they also listen to the writes reported). */
  dropCaches: () => void;
  /** How long the old store is kept open after a swap, for statements already under way. */
  retireAfterMs?: number;
}

const REPLICA_WINDOW_MS = 30_000;
const DRAIN_MS = 10_000;
const MAX_PARAMS = 30_000;

/** The meta store's move to another database (MR1–MR3). */
export class MetaRelocator {
  private state: RelocationStatus | null = null;
  private running = false;
  previous: PreviousPlacement | null;

  constructor(private readonly deps: RelocatorDeps) {
    this.previous = deps.previous;
  }

  status(): RelocationStatus | null {
    return this.state;
  }

  /**
   * The refusals (MR1), in the order the issue lists them; throws AppError. With `connect`, opens
   * the target to see that it answers and holds none of our tables.
   */
  async refuse(target: RelocationTarget, opts: { connect: boolean; jobId?: string }): Promise<void> {
    const { store } = this.deps;
    if (this.deps.urlFromEnv) {
      throw new AppError('META_PLACEMENT_FROM_ENV', {
        params: { variable: 'SVC_META_URL' },
      });
    }
    if (await this.replicas()) throw new AppError('META_RELOCATE_REPLICAS');
    if (this.running || (await this.otherRelocation(opts.jobId)))
      throw new AppError('CONFLICT', { message: 'A relocation is already running.', params: { reason: 'relocation-running' } });
    const to = this.placementOf(target);
    if (samePlace(store.placement, to))
      throw new AppError('CONFLICT', { message: 'That is where the meta store already is.', params: { reason: 'same-store' } });
    if (!opts.connect) return;
    if ('embedded' in target) {
      const file = this.embeddedFile();
      if (!existsSync(file)) return;
      const held = await this.withTarget(target, (t) => this.ourTablesIn(t));
      if (held.length > 0) throw notEmpty(held);
      return;
    }
    const held = await this.withTarget(target, (t) => this.ourTablesIn(t));
    if (held.length > 0) throw notEmpty(held);
  }

  /** Runs a relocation (or a dry run) to the end: the job's work. */
  async run(
    target: RelocationTarget,
    opts: { dryRun: boolean; jobId: string | null; progress?: (done: number, total: number | null, message: string) => Promise<void> },
  ): Promise<RelocationResult> {
    await this.refuse(target, { connect: true, ...(opts.jobId ? { jobId: opts.jobId } : {}) });
    this.running = true;
    const to = this.placementOf(target);
    this.state = { jobId: opts.jobId, phase: 'checking', dryRun: opts.dryRun, to, tables: [], freezeMs: null, error: null };
    try {
      const result = opts.dryRun ? await this.dryRun(target) : await this.move(target, opts.progress);
      this.state.phase = 'done';
      return result;
    } catch (err) {
      this.state.phase = 'failed';
      this.state.error = (err as Error).message;
      throw err;
    } finally {
      this.running = false;
    }
  }

  private async dryRun(target: RelocationTarget): Promise<RelocationResult> {
    const { store } = this.deps;
    const source = this.openSource();
    try {
      const tables = await copyOrder(source.db, source.dialect);
      const reports: TableReport[] = [];
      for (const t of tables) {
        const rows = Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.name)}`.execute(source.db)).rows[0]?.n ?? 0);
        reports.push({ name: t.name, rows, copied: 0, checksum: '', recopied: 0, readWhole: 0 });
        this.state!.tables.push({ name: t.name, rows, copied: 0 });
      }
      if ('url' in target) await this.withTarget(target, async () => undefined);
      return { dryRun: true, from: store.placement, to: this.placementOf(target), tables: reports, rows: sum(reports), copyMs: 0, catchUpMs: 0, freezeMs: 0 };
    } finally {
      await source.close();
    }
  }

  private async move(target: RelocationTarget, progress?: (done: number, total: number | null, message: string) => Promise<void>): Promise<RelocationResult> {
    const { store, log, now } = this.deps;
    const from = store.placement;
    const fromUrl = store.current().url;
    const relayed = new MetaWrites();
    let live = false;
    relayed.on((w) => {
      if (live) store.writes.emit(w);
    });
    const opened = this.openTarget(target, relayed, store.freeze.generation + 1);
    const state = this.state!;
    let swapped = false;
    let watching: (() => void) | null = null;
    const source = this.openSource();
    try {
      state.phase = 'migrating';
      try {
        await sql`select 1`.execute(opened.db);
      } catch (err) {
        throw new TargetConnectFailure(opened.helpers.dialect, err);
      }
      await runMigrations(opened, this.deps.migrations(), now);
      const order = await copyOrder(source.db, source.dialect);
      const targetTables = new Set(await listTables(opened.db as AnyDb, opened.helpers.dialect));
      const missing = order.filter((t) => !targetTables.has(t.name)).map((t) => t.name);
      if (missing.length > 0) throw new Error(`the target has no table ${missing.join(', ')} after migrating`);
      // What migrations seeded there (built-in roles, settings) is replaced by the old store's rows.
      for (const t of [...order].reverse()) await opened.db.deleteFrom(t.name as never).execute();

      // The copy: one snapshot of the old store, in primary-key order, while the instance serves.
      // The rows the instance writes from now on are recorded by key (a table whose writes do not
      // say which rows is recorded whole) and copied again afterwards (MR4).
      const changes = new WriteLog(order);
      const stopWatching = store.writes.on((w) => changes.record(w));
      watching = stopWatching;
      state.phase = 'copying';
      const started = now();
      const copied = new Map<string, Map<string, number>>();
      const copiedRows = new Map<string, number>();
      let total = 0;
      let done = 0;
      await source.snapshot(async (read) => {
        const counts: number[] = [];
        for (const t of order)
          counts.push(Number((await read.execute(sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.name)}`)).rows[0]?.n ?? 0));
        total = counts.reduce((a, b) => a + b, 0);
        state.tables = order.map((t, i) => ({ name: t.name, rows: counts[i]!, copied: 0 }));
        for (const [i, t] of order.entries()) {
          const hashes = new Map<string, number>();
          copied.set(t.name, hashes);
          let after: Row | null = null;
          let batch = 0;
          for (;;) {
            const rows = await read.batch(t, after, batchSize(t.columns));
            if (rows.length === 0) break;
            await insertRows(opened.db as AnyDb, t.name, rows, t.columns);
            for (const r of rows) hashes.set(keyOf(t, r), rowHash(t.columns, r));
            after = rows[rows.length - 1]!;
            done += rows.length;
            state.tables[i]!.copied += rows.length;
            if (++batch % 5 === 0 || rows.length < batchSize(t.columns))
              await progress?.(done, total, `${t.name}: ${state.tables[i]!.copied}/${state.tables[i]!.rows}`);
            await new Promise((r) => setImmediate(r));
          }
          copiedRows.set(t.name, hashes.size);
        }
      });
      // What landed is read back and checked against what was sent, before the freeze.
      for (const t of order) {
        const sent = copied.get(t.name)!;
        const got = await tableChecksum(opened.db as AnyDb, t);
        const expected = checksumOf(sent.values());
        if (got.rows !== sent.size || got.checksum !== expected) {
          throw new Error(`table ${t.name} differs after the copy: ${got.rows} rows (checksum ${got.checksum}) where ${sent.size} (${expected}) were sent`);
        }
      }
      const copyMs = now() - started;

      // Catch-up passes while the instance still serves: each copies again what was written
      // since the last read, so the freeze is left with what the last pass did not see.
      const again = new Map<string, { recopied: number; readWhole: number }>(order.map((t) => [t.name, { recopied: 0, readWhole: 0 }]));
      const mirror = new Mirror(opened.db as AnyDb, order, copied, again);
      const catchUpStarted = now();
      for (let pass = 0; pass < CATCH_UP_PASSES && !changes.small(); pass++) {
        await progress?.(done, total, `catching up: ${changes.describe()}`);
        const taken = changes.take();
        await source.snapshot((read) => mirror.apply(read, taken, { final: false }));
      }
      const catchUpMs = now() - catchUpStarted;

      // The freeze: writes wait while what was written since the last pass is copied again and
      // verified; every other table is only counted.
      state.phase = 'freeze';
      await progress?.(done, total, 'freeze: copying what changed, verifying');
      const frozenAt = Date.now();
      store.freeze.close();
      let reports: TableReport[];
      try {
        if (!(await store.freeze.drained(DRAIN_MS))) throw new Error('transactions on the meta store did not end within 10 s');
        stopWatching();
        const taken = changes.take();
        await source.snapshot((read) => mirror.apply(read, taken, { final: true }));
        reports = order.map((t) => {
          const hashes = copied.get(t.name)!;
          return { name: t.name, rows: hashes.size, copied: copiedRows.get(t.name)!, checksum: checksumOf(hashes.values()), ...again.get(t.name)! };
        });
        // Past this point the new store is the store: a process started now opens it.
        const stamp = now();
        const previous: PreviousPlacement = {
          dialect: from.dialect,
          location: from.dialect === 'sqlite' ? relocatedName(from.location, stamp) : from.location,
          relocatedAt: stamp,
        };
        const record: PlacementRecord = {
          url: opened.url,
          previous,
          rename: from.dialect === 'sqlite' ? { from: from.location, to: previous.location } : null,
        };
        writePlacement(this.deps.dataDir, this.deps.secret, record);
        relayed.storage = store.writes.storage;
        const old = store.swap(opened);
        live = true;
        swapped = true;
        this.previous = previous;
        this.deps.dropCaches();
        for (const t of order) store.writes.emit({ op: 'delete', table: t.name, columns: [] });
        store.freeze.lift(true);
        const freezeMs = Date.now() - frozenAt;
        try {
          await this.deps.bridgeTo(opened.url, opened.helpers.dialect);
        } catch (err) {
          log.warn({ err: { message: (err as Error).message } }, 'event bridge not started after relocation; other replicas poll the outbox');
        }
        state.freezeMs = freezeMs;
        this.retire(old, record, fromUrl);
        log.info({ from: from.location, to: opened.placement.location, freezeMs, copyMs }, 'meta store relocated');
        return { dryRun: false, from, to: opened.placement, tables: reports, rows: sum(reports), copyMs, catchUpMs, freezeMs };
      } finally {
        if (!swapped) store.freeze.lift(false);
        state.freezeMs ??= Date.now() - frozenAt;
      }
    } catch (err) {
      if (!swapped) {
        const held = await this.ourTablesIn(opened).catch(() => [] as string[]);
        await opened.db.destroy().catch(() => undefined);
        if (err instanceof TargetConnectFailure || err instanceof AppError) throw err;
        const what =
          held.length > 0
            ? ` The target now holds ${held.length} table(s) of a partial copy (${held.join(', ')}); drop them before trying again.`
            : ' The target holds none of our tables.';
        throw new RelocationFailed(`The relocation failed and the instance stays on its old store: ${scrubUrls((err as Error).message)}.${what}`, err);
      }
      throw err;
    } finally {
      watching?.();
      await source.close();
    }
  }

  /** Closes the old store once statements under way have had their time, then renames the old embedded file. */
  private retire(old: OpenedStore, record: PlacementRecord, _fromUrl: string | null): void {
    const { dataDir, secret, log } = this.deps;
    const timer = setTimeout(() => {
      void (async () => {
        await old.db.destroy().catch(() => undefined);
        try {
          finishRename(dataDir, secret, record);
        } catch (err) {
          log.warn({ err: { message: (err as Error).message } }, 'the old embedded meta store could not be renamed; it will be at the next start');
        }
      })();
    }, this.deps.retireAfterMs ?? 2_000);
    timer.unref();
  }

  /** Other processes on this store: a lease another instance holds, or the bridge heard one within 30 s. */
  private async replicas(): Promise<boolean> {
    const { store, instanceId, now } = this.deps;
    const seen = this.deps.otherInstanceSeenAt();
    if (seen !== null && Date.now() - seen < REPLICA_WINDOW_MS) return true;
    const row = await store.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('state', '=', 'running')
      .where('locked_by', 'not in', [instanceId, ...(this.deps.previousLife ? [this.deps.previousLife] : [])])
      .where('lease_until', '>', now())
      .executeTakeFirst();
    return Number(row?.n ?? 0) > 0;
  }

  private async otherRelocation(jobId: string | undefined): Promise<boolean> {
    let q = this.deps.store.db.selectFrom('jobs').select('id').where('kind', '=', 'meta.relocate').where('state', 'in', ['queued', 'running']);
    if (jobId) q = q.where('id', '<>', jobId);
    // The relocation a crash ended: its process is gone, so it runs no more (the runner fails it once its lease is out).
    const dead = this.deps.previousLife;
    if (dead) q = q.where((eb) => eb.or([eb('state', '<>', 'running'), eb('locked_by', 'is', null), eb('locked_by', '<>', dead)]));
    return (await q.limit(1).execute()).length > 0;
  }

  private embeddedFile(): string {
    return join(this.deps.dataDir, 'meta.sqlite');
  }

  placementOf(target: RelocationTarget): Placement {
    if ('embedded' in target) return { dialect: 'sqlite', location: this.embeddedFile() };
    const url = new URL(target.url);
    const dialect: Dialect = url.protocol === 'postgres:' || url.protocol === 'postgresql:' ? 'postgres' : 'mysql';
    return { dialect, location: `${dialect === 'mysql' ? 'mysql:' : url.protocol}//${url.host}${url.pathname}` };
  }

  private openTarget(target: RelocationTarget, writes: MetaWrites, generation: number): OpenedStore {
    const { dataDir, log, store } = this.deps;
    return openStore({
      url: 'url' in target ? target.url : null,
      dataDir,
      log,
      writes,
      freeze: store.freeze,
      generation,
    });
  }

  private async withTarget<T>(target: RelocationTarget, fn: (t: OpenedStore) => Promise<T>): Promise<T> {
    const t = this.openTarget(target, new MetaWrites(), this.deps.store.freeze.generation + 1);
    try {
      try {
        await sql`select 1`.execute(t.db);
      } catch (err) {
        throw new TargetConnectFailure(t.helpers.dialect, err);
      }
      return await fn(t);
    } finally {
      await t.db.destroy().catch(() => undefined);
    }
  }

  /** Tables of ours in `t`: any the current store has, and the migrations' record. */
  private async ourTablesIn(t: OpenedStore): Promise<string[]> {
    const ours = new Set([...(await listTables(this.deps.store.db as AnyDb, this.deps.store.dialect)), 'kernel_migrations']);
    return (await listTables(t.db as AnyDb, t.helpers.dialect)).filter((n) => ours.has(n)).sort();
  }

  /** A reader of the current store on connections of its own (not gated by the freeze). */
  private openSource(): Source {
    const { store } = this.deps;
    const current = store.current();
    if (current.url === null) {
      const database = new Database(current.placement.location, { readonly: true, fileMustExist: true });
      database.pragma('busy_timeout = 5000');
      return sourceOver(new Kysely<any>({ dialect: new SqliteDialect({ database }) }), 'sqlite');
    }
    const opened = openStore({ url: current.url, dataDir: this.deps.dataDir, log: this.deps.log });
    return sourceOver(opened.db as AnyDb, opened.helpers.dialect);
  }
}

function notEmpty(tables: string[]): AppError {
  return new AppError('META_TARGET_NOT_EMPTY', {
    message: `The target already holds tables of a meta store (${tables.slice(0, 10).join(', ')}${tables.length > 10 ? ', …' : ''}): relocate only to an empty database.`,
    params: { tables },
  });
}

function samePlace(a: Placement, b: Placement): boolean {
  if (a.dialect !== b.dialect) return false;
  if (a.dialect === 'sqlite') return a.location === b.location;
  const norm = (l: string) => {
    const u = new URL(l.replace(/^postgresql:/, 'postgres:'));
    const port = u.port || (a.dialect === 'postgres' ? '5432' : '3306');
    const host = u.hostname.toLowerCase() === 'localhost' ? '127.0.0.1' : u.hostname.toLowerCase();
    return `${host}:${port}${u.pathname.replace(/\/+$/, '')}`;
  };
  return norm(a.location) === norm(b.location);
}

export function relocatedName(file: string, at: number): string {
  return `${file}.relocated-${new Date(at).toISOString().replace(/[:.]/g, '-')}`;
}

function sum(reports: TableReport[]): number {
  return reports.reduce((a, r) => a + r.rows, 0);
}

interface Table {
  name: string;
  /** The primary key's columns; every column when the table has none. */
  pk: string[];
  columns: string[];
  /** Whether the table has a primary key (a write's rows are told by it). */
  keyed: boolean;
  /** Columns of this table a foreign key names. */
  referenced: Set<string>;
  /** Tables whose foreign keys name this one, and those below them. */
  descendants: string[];
}

interface Source {
  db: AnyDb;
  dialect: Dialect;
  /** Runs `fn` inside one read snapshot on one connection. */
  snapshot<T>(fn: (read: SnapshotReader) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

interface SnapshotReader {
  execute<R>(q: ReturnType<typeof sql<R>>): Promise<{ rows: R[] }>;
  batch(t: Table, after: Row | null, limit: number): Promise<Row[]>;
  all(t: Table): Promise<Row[]>;
  /** The rows with these key values (each in `t.pk`'s order). */
  byKeys(t: Table, keys: readonly unknown[][]): Promise<Row[]>;
}

function sourceOver(db: AnyDb, dialect: Dialect): Source {
  return {
    db,
    dialect,
    snapshot: (fn) =>
      db.connection().execute(async (conn) => {
        const begin =
          dialect === 'postgres'
            ? sql`begin isolation level repeatable read`
            : dialect === 'mysql'
              ? sql`start transaction with consistent snapshot`
              : sql`begin`;
        if (dialect === 'mysql') await sql`set transaction isolation level repeatable read`.execute(conn);
        await begin.execute(conn);
        try {
          const out = await fn({
            execute: (q) => q.execute(conn),
            batch: (t, after, limit) => {
              let q = conn.selectFrom(t.name).selectAll();
              if (after) q = q.where((eb) => afterKey(eb, t.pk, after));
              for (const c of t.pk) q = q.orderBy(c);
              return q.limit(limit).execute() as Promise<Row[]>;
            },
            all: (t) => conn.selectFrom(t.name).selectAll().execute() as Promise<Row[]>,
            byKeys: (t, keys) => rowsByKeys(conn, t, keys),
          });
          await sql`commit`.execute(conn);
          return out;
        } catch (err) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw err;
        }
      }),
    close: () => db.destroy(),
  };
}

/** More keys than this recorded for one table, and it is read again whole. */
const MAX_TABLE_KEYS = 50_000;
/** Catch-up passes run before the freeze until at most this many keys and no whole table are left … */
const FREEZE_KEYS = 500;
/** … or this many passes ran. */
const CATCH_UP_PASSES = 3;

/** A table's writes since the last read: the keys written (their text → their values), or the whole table. */
type Recorded = Map<string, unknown[]> | 'whole';

/**
 * The rows the instance writes during a relocation, by table and key, from the meta store's
 * write watcher (MR4). A write that does not tell which rows (a range delete, raw SQL, too many
 * keys) records its table whole; a delete, or an update of a column a foreign key names, records
 * the tables below it whole too (a cascade writes rows the statement does not name).
 */
class WriteLog {
  private tables = new Map<string, Recorded>();
  private keys = 0;
  private readonly byName: Map<string, Table>;

  constructor(private readonly order: readonly Table[]) {
    this.byName = new Map(order.map((t) => [t.name, t]));
  }

  record(w: MetaWrite): void {
    if (w.table === ANY_TABLE) {
      for (const t of this.order) this.whole(t.name);
      return;
    }
    // Not a copied table (kernel_migrations: the target records its own).
    const t = this.byName.get(w.table);
    if (!t) return;
    if (w.op === 'delete' || (w.op === 'update' && (w.columns.length === 0 || w.columns.some((c) => t.referenced.has(c)))))
      for (const d of t.descendants) this.whole(d);
    if (this.tables.get(t.name) === 'whole') return;
    const keys = t.keyed ? (w.keysOf?.(t.pk) ?? null) : null;
    if (!keys) return this.whole(t.name);
    let known = this.tables.get(t.name) as Map<string, unknown[]> | undefined;
    if (!known) this.tables.set(t.name, (known = new Map()));
    for (const k of keys) {
      const text = keyText(k);
      if (known.has(text)) continue;
      known.set(text, k);
      this.keys++;
    }
    if (known.size > MAX_TABLE_KEYS) this.whole(t.name);
  }

  private whole(name: string): void {
    const had = this.tables.get(name);
    if (had instanceof Map) this.keys -= had.size;
    this.tables.set(name, 'whole');
  }

  /** Little enough to copy within the freeze. */
  small(): boolean {
    return this.keys <= FREEZE_KEYS && ![...this.tables.values()].includes('whole');
  }

  describe(): string {
    const whole = [...this.tables].filter(([, r]) => r === 'whole').map(([n]) => n);
    return `${this.keys} rows by key${whole.length > 0 ? `, ${whole.join(', ')} whole` : ''}`;
  }

  /** What was recorded so far; recording starts again empty. */
  take(): Map<string, Recorded> {
    const out = this.tables;
    this.tables = new Map();
    this.keys = 0;
    return out;
  }
}

interface Fresh {
  key: string;
  hash: number;
  row: Row;
}

/** What to write to a table of the target: rows added, rows changed, keys removed (their text, and their values when known). */
interface Plan {
  added: Fresh[];
  changed: Fresh[];
  removed: Array<{ key: string; values: unknown[] }>;
}

/**
 * Keeps the target equal to the old store for the rows written after the copy, and `copied`
 * (each table's row hashes by key, as the target holds them) up to date with it.
 */
class Mirror {
  constructor(
    private readonly db: AnyDb,
    private readonly order: readonly Table[],
    private readonly copied: Map<string, Map<string, number>>,
    private readonly again: Map<string, { recopied: number; readWhole: number }>,
  ) {}

  /**
   * Copies again the rows `written` names, as `read`'s snapshot holds them, and verifies them.
   * `final` (the freeze, no write under way): every table's count is compared with the old
   * store's too, and a table whose count does not add up is read again whole.
   */
  async apply(read: SnapshotReader, written: Map<string, Recorded>, opts: { final: boolean }): Promise<void> {
    const plans = new Map<string, Plan>();
    for (const t of this.order) {
      const then = this.copied.get(t.name)!;
      const recorded = written.get(t.name);
      if (recorded === undefined && !opts.final) continue;
      const count = opts.final ? await countRows(read, t) : null;
      if (recorded === undefined && count === then.size) continue;
      let plan = recorded instanceof Map ? await this.byKeys(read, t, recorded) : null;
      if (plan && count !== null && count !== then.size + plan.added.length - plan.removed.length) plan = null;
      if (!plan) this.again.get(t.name)!.readWhole++;
      plans.set(t.name, plan ?? (await this.whole(read, t)));
    }
    // Children's deletions first (a parent's delete would cascade), parents' inserts first.
    for (const t of [...this.order].reverse()) for (const r of plans.get(t.name)?.removed ?? []) await deleteRow(this.db, t, r.values);
    for (const t of this.order) {
      const plan = plans.get(t.name);
      if (!plan) continue;
      const then = this.copied.get(t.name)!;
      for (const f of plan.changed) await updateRow(this.db, t, f.row);
      const size = batchSize(t.columns);
      for (let i = 0; i < plan.added.length; i += size)
        await insertRows(
          this.db,
          t.name,
          plan.added.slice(i, i + size).map((f) => f.row),
          t.columns,
        );
      for (const r of plan.removed) then.delete(r.key);
      const written = [...plan.changed, ...plan.added];
      for (const f of written) then.set(f.key, f.hash);
      // Verified: the target's count, every row written again read back, every row removed gone.
      const count = Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.name)}`.execute(this.db)).rows[0]?.n ?? 0);
      if (count !== then.size) throw new Error(`table ${t.name} has ${count} rows in the target where ${then.size} were copied`);
      const back = new Map<string, number>();
      const asked = [...written.map((f) => t.pk.map((c) => f.row[c])), ...plan.removed.map((r) => r.values)];
      for (const r of await rowsByKeys(this.db, t, asked)) back.set(keyOf(t, r), rowHash(t.columns, r));
      for (const f of written) if (back.get(f.key) !== f.hash) throw new Error(`a row of ${t.name} differs in the target after it was copied again`);
      for (const r of plan.removed) if (back.has(r.key)) throw new Error(`a row of ${t.name} removed from the old store is still in the target`);
      this.again.get(t.name)!.recopied += written.length + plan.removed.length;
    }
  }

  /** The rows of the keys written, read by key. */
  private async byKeys(read: SnapshotReader, t: Table, recorded: Map<string, unknown[]>): Promise<Plan> {
    const then = this.copied.get(t.name)!;
    const plan: Plan = { added: [], changed: [], removed: [] };
    const found = new Set<string>();
    for (const row of await read.byKeys(t, [...recorded.values()])) {
      const f = { key: keyOf(t, row), hash: rowHash(t.columns, row), row };
      found.add(f.key);
      const before = then.get(f.key);
      if (before === undefined) plan.added.push(f);
      else if (before !== f.hash) plan.changed.push(f);
    }
    for (const [key, values] of recorded) if (!found.has(key) && then.has(key)) plan.removed.push({ key, values });
    return plan;
  }

  /** The whole table read again, compared row by row with what was copied. */
  private async whole(read: SnapshotReader, t: Table): Promise<Plan> {
    const then = this.copied.get(t.name)!;
    const plan: Plan = { added: [], changed: [], removed: [] };
    const now = new Set<string>();
    for (const row of await read.all(t)) {
      const f = { key: keyOf(t, row), hash: rowHash(t.columns, row), row };
      now.add(f.key);
      const before = then.get(f.key);
      if (before === undefined) plan.added.push(f);
      else if (before !== f.hash) plan.changed.push(f);
    }
    for (const key of then.keys()) if (!now.has(key)) plan.removed.push({ key, values: valuesOfKeyText(key) });
    return plan;
  }
}

async function countRows(read: SnapshotReader, t: Table): Promise<number> {
  return Number((await read.execute(sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.name)}`)).rows[0]?.n ?? 0);
}

/** The rows of `db`'s table `t` with these key values (each in `t.pk`'s order), in batches. */
async function rowsByKeys(db: AnyDb, t: Table, keys: readonly unknown[][]): Promise<Row[]> {
  const out: Row[] = [];
  const size = t.pk.length === 1 ? 500 : 100;
  for (let i = 0; i < keys.length; i += size) {
    const part = keys.slice(i, i + size);
    let q = db.selectFrom(t.name).selectAll();
    q =
      t.pk.length === 1
        ? q.where(
            t.pk[0]!,
            'in',
            part.map((k) => k[0]),
          )
        : q.where((eb: any) => eb.or(part.map((k) => eb.and(t.pk.map((c, j) => eb(c, '=', k[j]))))));
    out.push(...((await q.execute()) as Row[]));
  }
  return out;
}

/** Rows after `after` in the order of `pk`: (a > x) or (a = x and b > y) … */
function afterKey(eb: any, pk: string[], after: Row): any {
  const ors = pk.map((col, i) => eb.and([...pk.slice(0, i).map((p) => eb(p, '=', after[p])), eb(col, '>', after[col])]));
  return eb.or(ors);
}

function keyOf(t: Table, r: Row): string {
  return keyText(t.pk.map((c) => r[c]));
}

/** A key's values as one text, the same for a value as written and as read back (`canonical`). */
function keyText(values: readonly unknown[]): string {
  return JSON.stringify(values.map(canonical));
}

/** Key values back from a key's text: numbers and strings (the keys of our tables). */
function valuesOfKeyText(text: string): unknown[] {
  return (JSON.parse(text) as string[]).map((k) => (k === 'n' ? null : k.startsWith('i') ? Number(k.slice(1)) : k.slice(1)));
}

function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'n';
  if (typeof v === 'number') return Number.isInteger(v) ? `i${v}` : `f${v}`;
  if (typeof v === 'bigint') return `i${v}`;
  if (typeof v === 'boolean') return `i${v ? 1 : 0}`;
  if (typeof v === 'string') return /^-?\d{1,15}$/.test(v) && String(Number(v)) === v ? `i${v}` : `s${v}`;
  if (v instanceof Uint8Array) return `b${Buffer.from(v).toString('base64')}`;
  if (v instanceof Date) return `i${v.getTime()}`;
  return `j${JSON.stringify(v)}`;
}

/**
 * A 53-bit hash of a row's canonical values (two 32-bit FNV-style hashes with murmur's
 * finalizer, 32 + 21 bits kept): it finds a row copied wrong, it is no defence against a forger,
 * and it costs a fraction of a cryptographic digest per row (the freeze hashes whole tables).
 */
function rowHash(columns: string[], r: Row): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (const c of columns) {
    const s = `${c}\u0001${canonical(r[c])}\u0002`;
    for (let i = 0; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 0x01000193);
      h2 = Math.imul(h2 ^ ch, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
  }
  return (fmix(h1) >>> 0) * 2_097_152 + ((fmix(h2 ^ 0x2545f491) >>> 0) >>> 11);
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Order-independent: the sums of the rows' hashes' two parts, modulo 2^32 and 2^21. */
function checksumOf(hashes: Iterable<number>): string {
  let hi = 0;
  let lo = 0;
  let n = 0;
  for (const h of hashes) {
    hi += Math.floor(h / 2_097_152);
    lo += h % 2_097_152;
    if (++n % 1_000_000 === 0) {
      hi %= 4_294_967_296;
      lo %= 2_097_152;
    }
  }
  return (hi % 4_294_967_296).toString(16).padStart(8, '0') + (lo % 2_097_152).toString(16).padStart(8, '0');
}

async function tableChecksum(db: AnyDb, t: Table): Promise<{ rows: number; checksum: string }> {
  const rows = (await db.selectFrom(t.name).selectAll().execute()) as Row[];
  return { rows: rows.length, checksum: checksumOf(rows.map((r) => rowHash(t.columns, r))) };
}

function batchSize(columns: string[]): number {
  return Math.max(1, Math.min(1000, Math.floor(MAX_PARAMS / Math.max(1, columns.length))));
}

async function insertRows(db: AnyDb, table: string, rows: Row[], columns: string[]): Promise<void> {
  if (rows.length === 0) return;
  // Rows holding binary contents (file chunks, 256 KiB each) go one by one: a server's packet limit.
  if (rows.some((r) => columns.some((c) => r[c] instanceof Uint8Array))) {
    for (const r of rows) await db.insertInto(table).values(pick(r, columns)).execute();
    return;
  }
  await db
    .insertInto(table)
    .values(rows.map((r) => pick(r, columns)))
    .execute();
}

function pick(r: Row, columns: string[]): Row {
  const out: Row = {};
  for (const c of columns) out[c] = r[c] ?? null;
  return out;
}

async function updateRow(db: AnyDb, t: Table, r: Row): Promise<void> {
  const set: Row = {};
  for (const c of t.columns) if (!t.pk.includes(c)) set[c] = r[c] ?? null;
  let q = db.updateTable(t.name).set(set);
  for (const c of t.pk) q = q.where(c, '=', r[c]);
  if (Object.keys(set).length > 0) await q.execute();
}

async function deleteRow(db: AnyDb, t: Table, keyValues: readonly unknown[]): Promise<void> {
  let q = db.deleteFrom(t.name);
  for (const [i, c] of t.pk.entries()) q = q.where(c, '=', keyValues[i]);
  await q.execute();
}

export async function listTables(db: AnyDb, dialect: Dialect): Promise<string[]> {
  const q =
    dialect === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : dialect === 'postgres'
        ? sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`
        : sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = database() and table_type = 'BASE TABLE'`;
  return (await q.execute(db)).rows.map((r) => String(r.name ?? (r as Record<string, unknown>).NAME ?? (r as Record<string, unknown>).TABLE_NAME));
}

async function primaryKey(db: AnyDb, dialect: Dialect, table: string): Promise<string[]> {
  const q =
    dialect === 'sqlite'
      ? sql<{ name: string }>`select name from pragma_table_info(${table}) where pk > 0 order by pk`
      : dialect === 'postgres'
        ? sql<{
            name: string;
          }>`select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = (quote_ident(current_schema()) || '.' || quote_ident(${table}))::regclass and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)`
        : sql<{
            name: string;
          }>`select column_name as name from information_schema.key_column_usage where table_schema = database() and table_name = ${table} and constraint_name = 'PRIMARY' order by ordinal_position`;
  return (await q.execute(db)).rows.map((r) => String(r.name ?? (r as Record<string, unknown>).COLUMN_NAME));
}

async function columnsOf(db: AnyDb, dialect: Dialect, table: string): Promise<string[]> {
  const q =
    dialect === 'sqlite'
      ? sql<{ name: string }>`select name from pragma_table_info(${table}) order by cid`
      : dialect === 'postgres'
        ? sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`
        : sql<{
            name: string;
          }>`select column_name as name from information_schema.columns where table_schema = database() and table_name = ${table} order by ordinal_position`;
  return (await q.execute(db)).rows.map((r) => String(r.name ?? (r as Record<string, unknown>).COLUMN_NAME));
}

interface ForeignKeyColumn {
  child: string;
  parent: string;
  /** The parent's column it names (null on SQLite: the parent's primary key). */
  parentColumn: string | null;
}

async function foreignKeys(db: AnyDb, dialect: Dialect, tables: string[]): Promise<ForeignKeyColumn[]> {
  if (dialect === 'sqlite') {
    const out: ForeignKeyColumn[] = [];
    for (const t of tables) {
      const rows = (await sql<{ table: string; to: string | null }>`select "table", "to" from pragma_foreign_key_list(${t})`.execute(db)).rows;
      for (const r of rows) out.push({ child: t, parent: r.table, parentColumn: r.to });
    }
    return out;
  }
  const q =
    dialect === 'postgres'
      ? sql<ForeignKeyColumn>`select cl.relname as child, pc.relname as parent, a.attname as "parentColumn" from pg_constraint c join pg_class cl on cl.oid = c.conrelid join pg_class pc on pc.oid = c.confrelid join pg_attribute a on a.attrelid = c.confrelid and a.attnum = any(c.confkey) where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`
      : sql<ForeignKeyColumn>`select table_name as child, referenced_table_name as parent, referenced_column_name as parentColumn from information_schema.key_column_usage where table_schema = database() and referenced_table_name is not null`;
  return (await q.execute(db)).rows;
}

/** Every table to copy, parents before children, with its key and columns. */
async function copyOrder(db: AnyDb, dialect: Dialect): Promise<Table[]> {
  const names = (await listTables(db, dialect)).filter((n) => n !== 'kernel_migrations').sort();
  const fks = await foreignKeys(db, dialect, names);
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  for (const { child, parent } of fks) if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (n: string, path: Set<string>) => {
    if (placed.has(n) || path.has(n)) return;
    path.add(n);
    for (const p of parents.get(n) ?? []) visit(p, path);
    placed.add(n);
    ordered.push(n);
  };
  for (const n of names) visit(n, new Set());
  const children = new Map<string, Set<string>>(names.map((n) => [n, new Set<string>()]));
  for (const { child, parent } of fks) if (child !== parent && children.has(parent) && children.has(child)) children.get(parent)!.add(child);
  const below = (n: string, seen = new Set<string>()): Set<string> => {
    for (const c of children.get(n) ?? []) if (!seen.has(c)) below(c, seen.add(c));
    return seen;
  };
  const out: Table[] = [];
  for (const name of ordered) {
    const columns = await columnsOf(db, dialect, name);
    const pk = await primaryKey(db, dialect, name);
    const referenced = new Set<string>();
    for (const fk of fks) if (fk.parent === name) for (const c of fk.parentColumn === null ? pk : [fk.parentColumn]) referenced.add(c);
    out.push({ name, columns, pk: pk.length > 0 ? pk : columns, keyed: pk.length > 0, referenced, descendants: [...below(name)] });
  }
  return out;
}

/** Renames a leftover embedded file named in the placement (kernel start, MR2). */
export function renameLeftover(file: string, to: string): void {
  if (!existsSync(file)) return;
  renameSync(file, to);
  chmodSync(to, 0o400);
}
