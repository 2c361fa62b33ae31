/**
 * `@svc-admin/addons-sdk/testing`: a `ctx` double, so that an author unit-tests hooks and
 * actions (with vitest, or any runner) without an instance. It keeps the host API's contract:
 * `ctx.db` over an in-memory store of the add-on's tables with the data API's filter operators,
 * sort and cursors; `ctx.kv`; `ctx.mail.send` and `ctx.fetch` recorded (fetch answered by the
 * test's handler, to `outbound` hosts only); `ctx.log` captured; `ctx.refuse` throws an
 * ActionRefused as the instance answers it. What it does not do: the sandbox's limits (CPU,
 * memory, host calls), the database's own types and collations, the public endpoint's rules.
 */
import { parseAddonManifest, type AddonManifest } from '../manifest/addon.js';
import { FILTER_OPS, type FilterOp } from '../manifest/endpoint.js';
import type { AddonContext, FetchInit, FetchResponse, HostLog, Json, ListOptions, Page, Row, Where } from '../define.js';

/** A host function's refusal, as the sandbox rejects it: an Error with the instance's error code. */
export class HostError extends Error {
  override readonly name = 'HostError';
  constructor(
    readonly code: string,
    message: string,
    readonly params: Record<string, Json> = {},
  ) {
    super(message);
  }
}

/** What `ctx.refuse(status, code, message, params)` throws: the caller gets `status` and `{error: {code, message, params}}`. */
export class ActionRefused extends Error {
  override readonly name = 'ActionRefused';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly params: Record<string, Json> = {},
  ) {
    super(message);
  }
}

/** The rules ctx.refuse checks (the instance checks them again). */
const REFUSE_CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
const RESERVED_PREFIXES = ['ADDON_', 'PUBLIC_', 'AUTH_', 'BRIDGE_'];

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, Json>;
}

export interface SentMail {
  template: string;
  to: string;
  vars: Record<string, Json>;
}

export interface FetchCall {
  url: string;
  init: FetchInit;
}

/** The test's stand-in for the world: answers each ctx.fetch that the outbound rules let through. */
export type FetchHandler = (url: string, init: FetchInit) => FetchResponse | Promise<FetchResponse>;

export interface TestContextOptions {
  /** The add-on's addon.json (parsed or as imported): its tables, capabilities, outbound and mail templates. Without it: any table, every capability, any host. */
  manifest?: unknown;
  settings?: Record<string, Json>;
  connection?: Record<string, string> | null;
  instance?: string | null;
  /** Rows each table starts with. */
  rows?: Record<string, Row[]>;
  kv?: Record<string, Json>;
  fetch?: FetchHandler;
  /** The clock for `now()` defaults (default: the real one). */
  now?: () => Date;
}

/** The in-memory tables behind ctx.db. */
export class MemoryStore {
  private readonly tables = new Map<string, Row[]>();
  private readonly sequences = new Map<string, number>();

  constructor(
    private readonly manifest: AddonManifest | null,
    private readonly now: () => Date,
  ) {}

  /** A copy of a table's rows, in insertion order (for assertions). */
  rows(table: string): Row[] {
    return structuredClone(this.tables.get(table) ?? []);
  }

  /** Puts rows in as they are (no defaults, no hooks): a test's starting data. */
  seed(table: string, rows: Row[]): void {
    this.check(table);
    const list = this.table(table);
    for (const r of rows) {
      list.push(structuredClone(r));
      const pk = this.primaryKey(table);
      if (pk.length === 1 && typeof r[pk[0]!] === 'number') this.sequences.set(table, Math.max(this.sequences.get(table) ?? 0, r[pk[0]!] as number));
    }
  }

  private table(name: string): Row[] {
    let t = this.tables.get(name);
    if (!t) {
      t = [];
      this.tables.set(name, t);
    }
    return t;
  }

  private declared(name: string) {
    return this.manifest?.tables.find((t) => t.name === name) ?? null;
  }

  check(name: unknown): string {
    if (typeof name !== 'string' || (this.manifest && !this.declared(name)))
      throw new HostError('ADDON_HOST_DENIED', `${String(name)} is not one of the add-on's tables.`);
    return name;
  }

  primaryKey(name: string): string[] {
    return this.declared(name)?.primaryKey ?? ['id'];
  }

  private matchKey(name: string, id: Json | Row): (row: Row) => boolean {
    const pk = this.primaryKey(name);
    const parts = id !== null && typeof id === 'object' && !Array.isArray(id) ? pk.map((c) => (id as Row)[c]) : pk.length === 1 ? [id as Json] : null;
    if (!parts || parts.some((p) => p === undefined)) throw new HostError('VALIDATION_FAILED', `Name the row by its key: { ${pk.join(', ')} }.`);
    return (row) => pk.every((c, i) => same(row[c] ?? null, parts[i] ?? null));
  }

  list(name: string, options: ListOptions = {}): Page {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new HostError('VALIDATION_FAILED', 'limit is 1 to 500.');
    const sort = [...(options.sort ?? [])];
    const keys = sort.map((s) => ({ column: s.replace(/^[-+]/, ''), desc: s.startsWith('-') }));
    for (const c of this.primaryKey(name)) if (!keys.some((k) => k.column === c)) keys.push({ column: c, desc: false });
    const matching = this.table(name)
      .filter((row) => matches(row, options.where))
      .sort((a, b) => {
        for (const k of keys) {
          const d = compare(a[k.column] ?? null, b[k.column] ?? null);
          if (d !== 0) return k.desc ? -d : d;
        }
        return 0;
      });
    const sortText = sort.join(',');
    let offset = 0;
    if (options.cursor !== undefined) {
      const m = /^mem:(\d+):(.*)$/.exec(options.cursor);
      if (!m || m[2] !== sortText) throw new HostError('VALIDATION_FAILED', 'The cursor is not one of this list (or it was made under another sort).');
      offset = Number(m[1]);
    }
    const rows = matching.slice(offset, offset + limit);
    const next = offset + limit < matching.length ? `mem:${offset + limit}:${sortText}` : null;
    return { rows: structuredClone(rows), next };
  }

  get(name: string, id: Json | Row): Row | null {
    const found = this.table(name).find(this.matchKey(name, id));
    return found ? structuredClone(found) : null;
  }

  insert(name: string, values: Row): Row {
    const row: Row = {};
    const declared = this.declared(name);
    for (const c of declared?.columns ?? []) {
      if (c.name in values) continue;
      if (c.autoIncrement) {
        const n = (this.sequences.get(name) ?? 0) + 1;
        this.sequences.set(name, n);
        row[c.name] = n;
      } else if (c.default === 'now()') row[c.name] = nowValue(c.type, this.now());
      else if (c.default !== undefined) row[c.name] = c.default;
      else row[c.name] = null;
    }
    for (const [k, v] of Object.entries(values)) {
      if (declared && !declared.columns.some((c) => c.name === k)) throw new HostError('VALIDATION_FAILED', `No column ${k}.`);
      row[k] = structuredClone(v);
    }
    for (const c of declared?.columns ?? [])
      if (!c.nullable && (row[c.name] === null || row[c.name] === undefined))
        throw new HostError('DATA_REFUSED', `${c.name} may not be null.`, { column: c.name });
    const key = this.matchKey(name, this.primaryKey(name).length === 1 ? (row[this.primaryKey(name)[0]!] ?? null) : row);
    if (this.table(name).some(key)) throw new HostError('CONFLICT', 'A row with this key exists.');
    this.table(name).push(row);
    return structuredClone(row);
  }

  update(name: string, id: Json | Row, values: Row): Row {
    const row = this.table(name).find(this.matchKey(name, id));
    if (!row) throw new HostError('NOT_FOUND', 'No such row.');
    const declared = this.declared(name);
    for (const [k, v] of Object.entries(values)) {
      const column = declared?.columns.find((c) => c.name === k);
      if (declared && !column) throw new HostError('VALIDATION_FAILED', `No column ${k}.`);
      if (column && !column.nullable && v === null) throw new HostError('DATA_REFUSED', `${k} may not be null.`, { column: k });
      row[k] = structuredClone(v);
    }
    return structuredClone(row);
  }

  delete(name: string, id: Json | Row): boolean {
    const list = this.table(name);
    const i = list.findIndex(this.matchKey(name, id));
    if (i === -1) return false;
    list.splice(i, 1);
    return true;
  }
}

function nowValue(type: string, at: Date): string {
  const iso = at.toISOString();
  if (type === 'date') return iso.slice(0, 10);
  if (type === 'time') return iso.slice(11, 19);
  return iso.slice(0, 19); // a datetime is ISO without zone (decisions DA3)
}

const same = (a: Json, b: Json): boolean => (a === null || b === null ? a === b : compare(a, b) === 0);

/** NULL sorts as the largest value (decisions DA4); numbers as numbers, the rest as text. */
function compare(a: Json, b: Json): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = typeof a === 'object' ? JSON.stringify(a) : String(a);
  const y = typeof b === 'object' ? JSON.stringify(b) : String(b);
  if (typeof a !== typeof b && !Number.isNaN(Number(x)) && !Number.isNaN(Number(y))) return Number(x) - Number(y);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `like`: `%` any run, `_` one character, case-insensitive (decisions DA4). */
function like(value: Json, pattern: Json): boolean {
  if (value === null) return false;
  const re = String(pattern)
    .split('')
    .map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`, 'is').test(String(value));
}

const OPS = new Set<string>(FILTER_OPS);

/** The data API's filter grammar over one row (ctx.db.list's `where`). */
function matches(row: Row, where: Where | undefined): boolean {
  if (!where) return true;
  if (typeof where !== 'object' || Array.isArray(where)) throw new HostError('VALIDATION_FAILED', 'where is an object of column conditions.');
  return Object.entries(where).every(([column, cond]) => {
    const pairs: Array<[string, Json]> =
      cond !== null && typeof cond === 'object' && !Array.isArray(cond) ? Object.entries(cond as Record<string, Json>) : [['eq', cond as Json]];
    const value = row[column] ?? null;
    return pairs.every(([op, operand]) => {
      if (!OPS.has(op)) throw new HostError('VALIDATION_FAILED', `Unknown operator ${op}.`);
      switch (op as FilterOp) {
        case 'eq':
          return operand === null ? value === null : value !== null && compare(value, operand) === 0;
        case 'ne':
          // `ne` also matches NULL (decisions DA4).
          return value === null || operand === null || compare(value, operand) !== 0;
        case 'lt':
          return value !== null && compare(value, operand) < 0;
        case 'lte':
          return value !== null && compare(value, operand) <= 0;
        case 'gt':
          return value !== null && compare(value, operand) > 0;
        case 'gte':
          return value !== null && compare(value, operand) >= 0;
        case 'in': {
          const list: Json[] = Array.isArray(operand) ? operand : String(operand).split(',');
          if (list.length > 500) throw new HostError('VALIDATION_FAILED', 'in takes at most 500 values.');
          return value !== null && list.some((v) => compare(value, v) === 0);
        }
        case 'like':
          return like(value, operand);
        case 'null':
          return (operand === true || operand === 'true') === (value === null);
      }
    });
  });
}

/** `*.example.com` matches its subdomains, a plain name only itself (as the instance's outbound rules). */
function hostListed(host: string, outbound: readonly string[], connection: Record<string, string> | null): boolean {
  return outbound.some((entry) => {
    const field = /^connect:(.+)$/.exec(entry);
    if (field) {
      try {
        return new URL(connection?.[field[1]!] ?? '').hostname === host;
      } catch {
        return false;
      }
    }
    return entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry;
  });
}

/** A `ctx` with what it recorded: the store, log lines, mails, fetches and kv. */
export interface TestContext extends AddonContext {
  store: MemoryStore;
  logs: LogLine[];
  mails: SentMail[];
  fetches: FetchCall[];
  kvData: Map<string, Json>;
}

/**
 * A `ctx` for unit tests of hooks and actions. With `manifest`, ctx.db knows its tables (key,
 * auto-increment, defaults, not-null), each host function is there only with its capability
 * (else it rejects ADDON_HOST_DENIED, as on the instance), `ctx.fetch` reaches `outbound` hosts
 * only, and `ctx.settings` starts from the settings' defaults.
 */
export function createTestContext(options: TestContextOptions = {}): TestContext {
  let manifest: AddonManifest | null = null;
  if (options.manifest !== undefined) {
    const parsed = parseAddonManifest(options.manifest);
    if (!parsed.ok) throw new Error(`createTestContext: the manifest is not valid: ${parsed.path}: ${parsed.message}`);
    manifest = parsed.manifest;
  }
  const now = options.now ?? (() => new Date());
  const store = new MemoryStore(manifest, now);
  for (const [table, rows] of Object.entries(options.rows ?? {})) store.seed(table, rows);
  const logs: LogLine[] = [];
  const mails: SentMail[] = [];
  const fetches: FetchCall[] = [];
  const kvData = new Map<string, Json>(Object.entries(options.kv ?? {}));
  const connection = options.connection ?? null;

  const capable = (capability: string) => {
    if (manifest && !(manifest.capabilities as readonly string[]).includes(capability))
      throw new HostError('ADDON_HOST_DENIED', `The add-on did not declare the ${capability} capability in addon.json.`);
  };
  /** Host calls are async and copy their arguments and results as JSON, as the sandbox's do. */
  const host =
    <A extends unknown[], R>(capability: string, fn: (...args: A) => R | Promise<R>) =>
    async (...args: A): Promise<R> => {
      capable(capability);
      const copied = JSON.parse(JSON.stringify(args) ?? '[]') as A;
      const result = await fn(...copied);
      return (result === undefined ? undefined : JSON.parse(JSON.stringify(result))) as R;
    };

  const defaults: Record<string, Json> = {};
  for (const [name, field] of Object.entries(manifest?.settings?.properties ?? {}))
    if ((field as { default?: Json }).default !== undefined) defaults[name] = (field as { default: Json }).default;

  const log = (level: LogLine['level']) => (message: string, fields?: Record<string, Json>) => {
    logs.push({ level, message: String(message), fields: fields === undefined ? {} : (JSON.parse(JSON.stringify(fields)) as Record<string, Json>) });
  };
  const hostLog: HostLog = { info: log('info'), warn: log('warn'), error: log('error') };

  const ctx: TestContext = {
    addon: { key: manifest?.key ?? 'test-addon', version: manifest?.version ?? '0.0.0' },
    instance: options.instance === undefined ? 'default' : options.instance,
    settings: Object.freeze({ ...defaults, ...(options.settings ?? {}) }),
    connection: connection === null ? null : Object.freeze({ ...connection }),
    db: {
      list: host('db', (table: string, o?: ListOptions) => store.list(store.check(table), o)),
      get: host('db', (table: string, id: Json | Row) => store.get(store.check(table), id)),
      insert: host('db', (table: string, values: Row) => store.insert(store.check(table), values)),
      update: host('db', (table: string, id: Json | Row, values: Row) => store.update(store.check(table), id, values)),
      delete: host('db', (table: string, id: Json | Row) => store.delete(store.check(table), id)),
    },
    kv: {
      get: host('kv', (key: string) => (kvData.has(key) ? kvData.get(key)! : null)),
      set: host('kv', (key: string, value: Json) => {
        if (typeof key !== 'string' || key.length < 1 || key.length > 200) throw new HostError('VALIDATION_FAILED', 'A kv key is 1 to 200 characters.');
        const next = new Map(kvData).set(key, value);
        let bytes = 0;
        for (const [k, v] of next) bytes += Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(v));
        if (bytes > 1024 * 1024) throw new HostError('ADDON_KV_FULL', 'The add-on’s kv is over 1 MiB.');
        kvData.set(key, value);
      }),
      delete: host('kv', (key: string) => {
        kvData.delete(key);
      }),
    },
    mail: {
      send: host('mail.send', (template: string, to: string, vars: Record<string, Json>) => {
        if (manifest && !manifest.mail.templates.some((t) => t.name === template))
          throw new HostError('ADDON_MAIL_TEMPLATE_UNKNOWN', `${template} is not one of the add-on's mail templates.`);
        if (typeof to !== 'string' || !/^[^\s@,<>]+@[^\s@,<>]+$/.test(to)) throw new HostError('VALIDATION_FAILED', 'to is one plain e-mail address.');
        mails.push({ template, to, vars: vars ?? {} });
      }),
    },
    fetch: host('fetch', async (url: string, init?: FetchInit) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new HostError('ADDON_OUTBOUND_REFUSED', `outbound fetch to ${String(url).slice(0, 200)} refused: not a URL`, { reason: 'invalid_url' });
      }
      const hostName = target.hostname;
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new HostError('ADDON_OUTBOUND_REFUSED', `outbound fetch to ${hostName} refused: only http and https`, { reason: 'scheme' });
      if (manifest && !hostListed(hostName, manifest.outbound, connection))
        throw new HostError('ADDON_OUTBOUND_REFUSED', `outbound fetch to ${hostName} refused: host not in the add-on's allow-list (outbound in addon.json)`, {
          reason: 'host_not_listed',
          host: hostName,
        });
      fetches.push({ url, init: init ?? {} });
      if (!options.fetch)
        throw new HostError('ADDON_FETCH_FAILED', `outbound fetch to ${hostName} failed: the test gave no fetch handler`, { reason: 'network' });
      return options.fetch(url, init ?? {});
    }),
    log: hostLog,
    refuse(status: number, code: string, message: string, params: Record<string, Json> = {}): never {
      if (!Number.isInteger(status) || status < 400 || status > 499 || status === 401 || status === 407)
        throw new TypeError(`ctx.refuse: status ${status} is not a 4xx the instance answers (400–499 but 401 and 407).`);
      if (!REFUSE_CODE.test(code) || RESERVED_PREFIXES.some((p) => code.startsWith(p)))
        throw new TypeError(`ctx.refuse: ${code} is not an add-on's code (2–64 of A-Z 0-9 _, starting with a letter, not ${RESERVED_PREFIXES.join(' ')}…).`);
      throw new ActionRefused(status, code, String(message).slice(0, 500), JSON.parse(JSON.stringify(params)) as Record<string, Json>);
    },
    store,
    logs,
    mails,
    fetches,
    kvData,
  };
  return ctx;
}
