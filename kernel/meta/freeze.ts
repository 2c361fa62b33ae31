import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { AppError } from '../errors.js';
import { wrapDriver } from './dialect-wrap.js';

/** How long a write waits for a freeze to lift before it is answered 503 (MR1). */
export const FREEZE_WAIT_MS = 10_000;

/** Statements that only read: everything else waits while the store is frozen. */
const READ_SQL = /^\s*(select|with|pragma|show|explain)\b/i;
const BEGIN_SQL = /^\s*(begin|start\s+transaction)\b/i;
const END_SQL = /^\s*(commit|rollback|end)\b(?!\s+to\b)/i;

function isRead(compiled: CompiledQuery): boolean {
  const kind = (compiled.query as { kind?: string }).kind;
  if (kind === 'SelectQueryNode') return true;
  if (kind === 'RawNode' || kind === undefined) return READ_SQL.test(compiled.sql);
  return false;
}

/** 503 META_UNAVAILABLE with Retry-After: the store is being moved, try again in a moment. */
export function frozenError(retryAfterS = 2): AppError {
  return new AppError('META_UNAVAILABLE', {
    message: 'The meta store is being moved; try again in a moment.',
    headers: { 'retry-after': String(retryAfterS) },
  });
}

/**
 * The write gate of the meta store (MR1, MR2), shared by every store the process opens. While
 * closed, a new transaction or a write outside one waits (up to FREEZE_WAIT_MS, then 503); reads
 * go on. Each store's driver is wrapped with the generation it was opened in: once a swap moved
 * the process to another store, a statement reaching an old store outside a transaction is
 * compiled again for the current one and run there (`redirect`), and a transaction begun on an
 * old store is refused.
 */
export class MetaFreeze {
  generation = 0;
  private closedBy: { lifted: Promise<void>; lift: () => void } | null = null;
  private open = 0;
  private readonly idle = new Set<() => void>();
  /** Runs a statement built for an older store on the current one (set by the store). */
  redirect: ((compiled: CompiledQuery) => Promise<QueryResult<unknown>>) | null = null;

  get frozen(): boolean {
    return this.closedBy !== null;
  }

  /** Transactions open on the current store, and writes outside one under way. */
  get openTransactions(): number {
    return this.open;
  }

  close(): void {
    if (this.closedBy) return;
    let lift!: () => void;
    const lifted = new Promise<void>((res) => (lift = res));
    this.closedBy = { lifted, lift };
  }

  /** Lifts the freeze; `swapped` says the process now uses another store. */
  lift(swapped: boolean): void {
    if (swapped) this.generation++;
    const c = this.closedBy;
    this.closedBy = null;
    c?.lift();
  }

  /** Resolves true once no transaction is open and no write under way on the current store, false after `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.open === 0) return Promise.resolve(true);
    return new Promise((res) => {
      const done = () => {
        clearTimeout(timer);
        this.idle.delete(done);
        res(true);
      };
      const timer = setTimeout(() => {
        this.idle.delete(done);
        res(false);
      }, timeoutMs);
      this.idle.add(done);
    });
  }

  /** Waits while frozen; throws 503 after FREEZE_WAIT_MS. */
  async pass(waitMs = FREEZE_WAIT_MS): Promise<void> {
    const c = this.closedBy;
    if (!c) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), waitMs)));
    try {
      if ((await Promise.race([c.lifted.then(() => 'lifted' as const), timeout])) === 'timeout') throw frozenError();
    } finally {
      clearTimeout(timer);
    }
  }

  began(generation: number): void {
    if (generation === this.generation) this.open++;
  }

  ended(generation: number): void {
    if (generation !== this.generation) return;
    this.open = Math.max(0, this.open - 1);
    if (this.open === 0) for (const f of [...this.idle]) f();
  }
}

/**
 * `dialect` whose writes pass `freeze`'s gate. `generation` is the one the store serves in: the
 * current one, or the next for a relocation's target, which is not gated until the swap.
 */
export function frozenGated(dialect: Dialect, freeze: MetaFreeze, generation = freeze.generation): Dialect {
  return wrapDriver(dialect, (driver): Driver => {
    // The driver's connection is taken only once the gate is passed: on SQLite there is one, and
    // a write waiting while holding it would hold every read up too.
    const inner = (c: DatabaseConnection) => (c as GatedConnection).taken();
    return {
      init: () => driver.init(),
      acquireConnection: () => Promise.resolve(new GatedConnection(() => driver.acquireConnection(), freeze, generation)),
      async beginTransaction(c, settings) {
        const g = c as GatedConnection;
        await g.enter();
        try {
          await driver.beginTransaction(await g.take(), settings);
        } catch (err) {
          g.leave();
          throw err;
        }
      },
      async commitTransaction(c) {
        try {
          await driver.commitTransaction(inner(c));
        } finally {
          (c as GatedConnection).leave();
        }
      },
      async rollbackTransaction(c) {
        try {
          await driver.rollbackTransaction(inner(c));
        } finally {
          (c as GatedConnection).leave();
        }
      },
      ...(driver.savepoint ? { savepoint: (c, name, compile) => driver.savepoint!(inner(c), name, compile) } : {}),
      ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: (c, name, compile) => driver.rollbackToSavepoint!(inner(c), name, compile) } : {}),
      ...(driver.releaseSavepoint ? { releaseSavepoint: (c, name, compile) => driver.releaseSavepoint!(inner(c), name, compile) } : {}),
      async releaseConnection(c) {
        const held = (c as GatedConnection).held;
        if (held) await driver.releaseConnection(held);
      },
      destroy: () => driver.destroy(),
    };
  });
}

class GatedConnection implements DatabaseConnection {
  private inTx = false;
  held: DatabaseConnection | null = null;
  private taking: Promise<DatabaseConnection> | null = null;

  constructor(
    private readonly acquire: () => Promise<DatabaseConnection>,
    private readonly freeze: MetaFreeze,
    private readonly generation: number,
  ) {}

  /** The driver's connection, taken on first use. */
  take(): Promise<DatabaseConnection> {
    if (this.held) return Promise.resolve(this.held);
    return (this.taking ??= this.acquire().then((c) => (this.held = c)));
  }

  taken(): DatabaseConnection {
    if (!this.held) throw new Error('no connection taken');
    return this.held;
  }

  private get moved(): boolean {
    return this.generation < this.freeze.generation;
  }

  /** A relocation's target before its swap: its own writes are not held. */
  private get ahead(): boolean {
    return this.generation > this.freeze.generation;
  }

  /** Before a transaction begins: wait out a freeze; refuse one on a store the process has left. */
  async enter(): Promise<void> {
    if (this.ahead) return;
    while (this.freeze.frozen) await this.freeze.pass();
    if (this.moved) throw frozenError(1);
    this.inTx = true;
    this.freeze.began(this.generation);
  }

  leave(): void {
    if (!this.inTx) return;
    this.inTx = false;
    this.freeze.ended(this.generation);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.ahead) return (await this.take()).executeQuery<R>(compiled);
    if (this.inTx) {
      const result = await (await this.take()).executeQuery<R>(compiled);
      if (END_SQL.test(compiled.sql) && (compiled.query as { kind?: string }).kind === 'RawNode') this.leave();
      return result;
    }
    if (BEGIN_SQL.test(compiled.sql)) {
      // A transaction begun by hand (the SQLite job claim's BEGIN IMMEDIATE).
      await this.enter();
      try {
        return await (await this.take()).executeQuery<R>(compiled);
      } catch (err) {
        this.leave();
        throw err;
      }
    }
    const write = !isRead(compiled);
    while (write && this.freeze.frozen) await this.freeze.pass();
    if (this.moved && this.freeze.redirect) return (await this.freeze.redirect(compiled)) as QueryResult<R>;
    if (!write) return (await this.take()).executeQuery<R>(compiled);
    // A write outside a transaction counts as one until it is answered: the freeze waits for it,
    // or a relocation could read the old store before it lands and never see it (MR4).
    this.freeze.began(this.generation);
    try {
      return await (await this.take()).executeQuery<R>(compiled);
    } finally {
      this.freeze.ended(this.generation);
    }
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.take()).streamQuery<R>(compiled, chunkSize);
  }
}
