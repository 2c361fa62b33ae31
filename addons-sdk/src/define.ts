import type { FilterOp } from './manifest/endpoint.js';

/**
 * What an add-on's `server.ts` exports: `export default defineAddon({ hooks, actions })`. The code
 * runs in the instance's sandbox (DESIGN D25) and reaches the world only through `ctx`, whose
 * parts exist as far as addon.json declared the capabilities. Every call is async and every
 * value crosses as a JSON copy.
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type Row = Record<string, Json>;

/** The data API's filter grammar: `{ status: 'open' }` is eq; `{ seats: { gte: 2 } }` names the operator. */
export type Where = Record<string, Json | Partial<Record<FilterOp, Json>>>;

export interface ListOptions {
  where?: Where;
  /** Column names, `-` for descending: `['-created_at', 'id']`. */
  sort?: string[];
  /** 1–500, default 50. */
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

export interface Page {
  rows: Row[];
  next: string | null;
}

/** The add-on's own tables (capability `db`), by the names addon.json gave them. */
export interface HostDb {
  list(table: string, options?: ListOptions): Promise<Page>;
  get(table: string, id: Json | Row): Promise<Row | null>;
  insert(table: string, values: Row): Promise<Row>;
  update(table: string, id: Json | Row, values: Row): Promise<Row>;
  delete(table: string, id: Json | Row): Promise<boolean>;
}

/** A small key–value store of the add-on's own (capability `kv`; 1 MiB in all). */
export interface HostKv {
  get(key: string): Promise<Json | null>;
  set(key: string, value: Json): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * Sends one of the add-on's own e-mails (capability `mail.send`): `template` is the name of one
 * of addon.json's `mail.templates`, `to` one plain address; rendered in the recipient's language.
 * Refused: ADDON_MAIL_TEMPLATE_UNKNOWN, VALIDATION_FAILED (not one address), ADDON_MAIL_QUOTA.
 */
export interface HostMail {
  send(template: string, to: string, vars: Record<string, Json>): Promise<void>;
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}
export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
/** HTTP to the hosts addon.json lists in `outbound` (capability `fetch`), while network features are on. */
export type HostFetch = (url: string, init?: FetchInit) => Promise<FetchResponse>;

export interface HostLog {
  info(message: string, fields?: Record<string, Json>): void;
  warn(message: string, fields?: Record<string, Json>): void;
  error(message: string, fields?: Record<string, Json>): void;
}

export interface AddonContext<Settings extends Record<string, Json> = Record<string, Json>> {
  /** The add-on's key and version. */
  addon: { key: string; version: string };
  /**
   * The instance (venue) this call is for (D28): `'default'` for the app's own instance (the only
   * one while the operator runs the app once), else the id the operator gave it. `ctx.db` sees
   * that instance's rows alone and `ctx.settings` are its settings.
   */
  instance: string | null;
  /** The operator's settings, secrets included (read-only). */
  settings: Readonly<Settings>;
  /** What connect stored (secret fields or OAuth tokens), or null when not connected. */
  connection: Readonly<Record<string, string>> | null;
  db: HostDb;
  kv: HostKv;
  mail: HostMail;
  fetch: HostFetch;
  log: HostLog;
  /**
   * Refuses an action's call with a 4xx of your choosing (400–499 but 401 and 407): throws, and the
   * caller gets `status` and the standard error envelope `{error: {code, message, params}}`.
   * `code`: your stable machine-readable code, 2–64 of `A-Z 0-9 _` starting with a letter (not one
   * of the instance's codes, nor starting `ADDON_`, `PUBLIC_`, `AUTH_`, `BRIDGE_`); `message`: for
   * the person calling (≤ 500 characters); `params`: JSON details (≤ 4 KiB). In a hook it fails the
   * call instead (a beforeWrite hook returns `{refuse}`).
   */
  refuse(status: number, code: string, message: string, params?: Record<string, Json>): never;
}

export type WriteOp = 'insert' | 'update' | 'delete';

export interface BeforeWriteEvent {
  table: string;
  op: WriteOp;
  /** The values being written (insert, update); empty for delete. */
  values: Row;
  /** The row as it is now (update, delete); null for insert. */
  previous: Row | null;
}
/** Return nothing to let the write through, `{ values }` to change what is written, `{ refuse }` to refuse it (400 with that message). */
export type BeforeWriteResult = void | undefined | { values?: Row; refuse?: string };

export interface AfterWriteEvent {
  table: string;
  op: WriteOp;
  /** The row as written (insert, update) or as it was (delete). */
  row: Row;
}

export interface ScheduleEvent {
  /** The cron expression, and when this run was due (ISO 8601). */
  cron: string;
  at: string;
}

export type BeforeWriteHook = (ctx: AddonContext, event: BeforeWriteEvent) => BeforeWriteResult | Promise<BeforeWriteResult>;
export type AfterWriteHook = (ctx: AddonContext, event: AfterWriteEvent) => void | Promise<void>;
export type ScheduleHook = (ctx: AddonContext, event: ScheduleEvent) => void | Promise<void>;
export type Action = (ctx: AddonContext, input: Json) => Json | void | Promise<Json | void>;

export interface AddonDefinition {
  /** Keys as in addon.json's `hooks`: `bookings.beforeWrite`, `bookings.afterWrite`, `schedule:0 6 * * *`. */
  hooks?: Record<string, BeforeWriteHook | AfterWriteHook | ScheduleHook>;
  /** Keys as in addon.json's `actions`. */
  actions?: Record<string, Action>;
}

export function defineAddon<const D extends AddonDefinition>(definition: D): D {
  return definition;
}
