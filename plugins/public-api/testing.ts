/** Fixtures for the public API tests: an instance serving it, a source database with our tables, keys. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { PluginDefinition } from '../../kernel/plugin/manifest.js';
import { expect } from 'vitest';
import { runScript } from '../../test/fixtures/schema/load.js';
import { openDatabase } from '../../test/fixtures/schema/open.js';
import type { HttpClient, HttpResponse } from '../../test/helpers/client.js';
import { call, expectContract } from '../../test/helpers/contract.js';
import { createTempDatabase, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { InstanceOptions, TestInstance } from '../../test/helpers/instance.js';
import { firstPartyPlugins } from '../index.js';
import publicAdmin from '../public-admin/manifest.js';
import publicApi from './manifest.js';

export const ORIGIN = 'https://shop.example';
export const OTHER_ORIGIN = 'https://elsewhere.example';
/** The tests' clock starts here: Sunday 1 March 2026, 09:00 UTC. */
export const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);
export const MINUTE = 60_000;

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

/** public-admin and this plugin, unless plugins/index.ts loads them already. */
export function publicPlugins() {
  return [publicAdmin, publicApi].filter((p) => !firstPartyPlugins.some((f) => f.name === p.name));
}

export function fixtureSql(dialect: Dialect): string {
  return readFileSync(new URL(`./fixtures/${dialect}.sql`, import.meta.url), 'utf8');
}

export interface Clock {
  now(): number;
  set(at: number): void;
  /** Moves past every one-minute limit window. */
  nextMinute(): void;
}

export interface PublicRequest {
  key?: string | null;
  /** Defaults to ORIGIN for a browser key, none for a server key; null sends none. */
  origin?: string | null;
  /** X-Forwarded-For (the instance trusts the proxy): another visitor address. */
  ip?: string;
  session?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface PublicFixture {
  inst: TestInstance;
  admin: HttpClient;
  dialect: Dialect;
  connectionId: string;
  clock: Clock;
  /** A handle on the source database, for setting rows up and checking what was written. */
  db: Kysely<any>;
  endpoint(body: Record<string, unknown>): Promise<any>;
  patchEndpoint(id: string, body: Record<string, unknown>): Promise<any>;
  key(
    kind: 'browser' | 'server',
    grants: Array<{ ref: string; methods: string[] }>,
    expires?: '30d' | '90d' | 'never',
  ): Promise<{ id: string; secret: string }>;
  /** A public request under /api/v1, checked against its route's declared response. */
  pub(method: string, path: string, opts?: PublicRequest): Promise<HttpResponse<any>>;
  /** Admin API call under /api/v1, checked against its contract. */
  api(method: string, path: string, body?: unknown): Promise<HttpResponse<any>>;
  close(): Promise<void>;
}

async function sourceFor(dialect: Dialect): Promise<{ url: string; target: string; cleanup(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'public-api-src-'));
    const file = join(dir, 'source.sqlite');
    await runScript('sqlite', file, fixtureSql('sqlite'));
    return { url: `sqlite:${file}`, target: file, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const temp: TempDatabase = await createTempDatabase(dialect);
  await runScript(dialect, temp.url, fixtureSql(dialect));
  return { url: temp.url, target: temp.url, cleanup: () => temp.drop() };
}

export interface FixtureOptions {
  env?: Record<string, string>;
  /** SVC_PUBLIC_API_ORIGINS; null leaves it unset (the public routes are not served). */
  origins?: string | null;
  /** Switch the public API on (default true). */
  enable?: boolean;
  /** More plugins for the instance (test plugins). */
  plugins?: PluginDefinition[];
  /** The instance's meta store (embedded SQLite by default). */
  meta?: InstanceOptions['meta'];
}

export async function publicFixture(dialect: Dialect, opts: FixtureOptions = {}): Promise<PublicFixture> {
  let at = T0;
  const clock: Clock = { now: () => at, set: (t) => (at = t), nextMinute: () => (at += MINUTE + 1000) };
  const origins = opts.origins === undefined ? `${ORIGIN},https://book.example` : opts.origins;
  const { inst, admin } = await bootWithAdmin({
    plugins: [...publicPlugins(), ...(opts.plugins ?? [])],
    ...(opts.meta ? { meta: opts.meta } : {}),
    now: () => at,
    env: { ...(origins ? { SVC_PUBLIC_API_ORIGINS: origins } : {}), SVC_TRUST_PROXY: 'true', ...opts.env },
  });
  const source = await sourceFor(dialect);
  const db = openDatabase(dialect, source.target);
  const api = (method: string, path: string, body?: unknown) => call(inst, admin, method, `/api/v1${path}`, body);
  const created = await api('POST', '/connections', { name: 'Shop', dialect, url: source.url });
  expect(created.status, created.text).toBe(201);
  const connectionId = created.body.data.connection.id as string;
  const introspected = await api('POST', `/connections/${connectionId}/introspect`, {});
  expect(introspected.status, introspected.text).toBe(200);
  if (origins && opts.enable !== false) {
    const on = await api('PUT', '/public-api', { enabled: true });
    expect(on.status, on.text).toBe(200);
  }
  const client = inst.client();
  return {
    inst,
    admin,
    dialect,
    connectionId,
    clock,
    db,
    api,
    async endpoint(body) {
      const res = await api('POST', '/public-scopes', { connectionId, ...body });
      expect(res.status, res.text).toBe(201);
      return res.body.data.scope;
    },
    async patchEndpoint(id, body) {
      const res = await api('PATCH', `/public-scopes/${id}`, body);
      expect(res.status, res.text).toBe(200);
      return res.body.data.scope;
    },
    async key(kind, grants, expires = 'never') {
      const res = await api('POST', '/public-keys', { name: `${kind} key`, kind, expires, grants });
      expect(res.status, res.text).toBe(201);
      return { id: res.body.data.key.id as string, secret: res.body.data.secret as string };
    },
    async pub(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.key) headers.authorization = `Bearer ${o.key}`;
      const origin = o.origin === undefined ? (o.key?.startsWith('adm_pub_') ? ORIGIN : null) : o.origin;
      if (origin) headers.origin = origin;
      if (o.ip) headers['x-forwarded-for'] = o.ip;
      if (o.session) headers['x-svc-public-session'] = o.session;
      const res = await client.request(method, `/api/v1${path}`, { body: o.body, headers, noOrigin: true });
      expectContract(inst, method, `/api/v1${path}`, res);
      return res;
    },
    async close() {
      await db.destroy().catch(() => undefined);
      await inst.close();
      await source.cleanup();
    },
  };
}

// ---- bookings ----

const EVENING: Array<[string, string]> = [['18:00', '22:00']];
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export const RULES = {
  timeColumn: 'starts_at',
  partyColumn: 'party',
  capacity: 10,
  slotMinutes: 30,
  openingHours: { ...Object.fromEntries(DAYS.map((d) => [d, EVENING])), sun: [['01:00', '04:00'], ...EVENING] },
  windowDays: 365,
  cancelBeforeMinutes: 120,
  emailColumn: 'email',
  codeColumn: 'code',
  localeColumn: 'locale',
};
export const BOOKING_COLUMNS = ['id', 'starts_at', 'party', 'email', 'code', 'guest_name', 'locale'];
export const EVENING_TIMES = ['18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30'];

/** A booking straight into the table (as the venue's own screens would write it); `at` in UTC. */
export async function seedBooking(f: PublicFixture, at: string, party: number, extra: Record<string, unknown> = {}): Promise<void> {
  await f.db
    .insertInto('bookings')
    .values({ venue: 'main', starts_at: at, party, ...extra })
    .execute();
}

export async function bookingsAt(f: PublicFixture, at: string): Promise<number> {
  const rows = await f.db.selectFrom('bookings').select('id').where('starts_at', '=', at).execute();
  return rows.length;
}

/** The venue's booking endpoint `ref` (guests book through it): RULES, with `booking` over them, on the venue's clock `timeZone`. */
export async function bookingTablesEndpoint(
  f: PublicFixture,
  ref: string,
  timeZone: string,
  booking: Partial<Omit<typeof RULES, 'openingHours'>> & { openingHours?: Record<string, string[][]> } = {},
) {
  return f.endpoint({
    ref,
    table: 'bookings',
    columns: BOOKING_COLUMNS,
    writable: ['starts_at', 'party', 'email', 'guest_name', 'locale'],
    filters: [{ column: 'venue', op: 'eq', value: 'main' }],
    timeZone,
    rateLimit: 1000,
    booking: { ...RULES, ...booking },
  });
}

export async function bookingEndpoints(f: PublicFixture) {
  await bookingTablesEndpoint(f, 'tables', 'Europe/Berlin');
  await f.endpoint({
    ref: 'my-booking',
    table: 'bookings',
    columns: BOOKING_COLUMNS,
    writable: ['starts_at', 'party', 'guest_name', 'email'],
    methods: ['GET', 'PATCH', 'DELETE'],
    filters: [{ column: 'venue', op: 'eq', value: 'main' }],
    identity: ['code', 'email'],
    needsSession: true,
    timeZone: 'Europe/Berlin',
    booking: RULES,
  });
  await f.endpoint({
    ref: 'check-in',
    table: 'bookings',
    columns: BOOKING_COLUMNS,
    writable: ['guest_name'],
    methods: ['GET', 'PATCH'],
    identity: ['code', 'email'],
    needsSession: true,
    timeZone: 'Europe/Berlin',
    window: { column: 'starts_at', opensBeforeMinutes: 1440 },
  });
  const widget = await f.key('browser', [
    { ref: 'tables', methods: ['POST'] },
    { ref: 'my-booking', methods: ['GET', 'PATCH', 'DELETE'] },
    { ref: 'check-in', methods: ['GET', 'PATCH'] },
  ]);
  const server = await f.key('server', [{ ref: 'tables', methods: ['GET', 'POST', 'PATCH', 'DELETE', 'BATCH'] }]);
  return { widget: widget.secret, server: server.secret };
}
