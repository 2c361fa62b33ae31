/** Types of svc-app.js, the SDK's surface helper (see the comment at its top). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Row = Record<string, Json>;
export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'like' | 'null';

export declare const VERSION: string;

export declare class SvcError extends Error {
  constructor(code: string, message?: string, params?: Record<string, Json>, status?: number | null);
  readonly code: string;
  readonly params: Record<string, Json>;
  /** The HTTP status of a public API answer, or the status a refusal through the bridge carried; null otherwise. */
  readonly status: number | null;
}

export interface AppConfig {
  appKey: string | null;
  apiBase: string;
}

export type Mode = 'bridge' | 'public' | 'none';

export interface ListQuery {
  /** `{ status: 'open' }` is eq; `{ seats: { gte: 2 } }`, `{ id: { in: [1, 2] } }`, `{ note: { null: true } }` name the operator. */
  filter?: Record<string, Json | Partial<Record<FilterOp, Json>>>;
  /** Column names, `-` for descending: `['-created_at', 'id']` or `'-created_at,id'`. */
  sort?: string[] | string;
  limit?: number;
  cursor?: string | null;
  search?: string;
  fields?: string[] | string;
}

export interface Records {
  list(query?: ListQuery): Promise<{ rows: Row[]; cursor: string | null }>;
  get(id: Json): Promise<Row>;
  create(values: Row): Promise<Row>;
  update(id: Json, values: Row): Promise<Row>;
  remove(id: Json): Promise<void>;
}

export interface App {
  readonly key: string;
  readonly mode: Mode;
  readonly appKey: string | null;
  readonly apiBase: string | null;
  action<T = Json>(name: string, input?: Json): Promise<T>;
  records(ref: string): Records;
  availability(ref: string, query: { date: string; party: number }): Promise<Array<{ time: string; state: 'free' | 'full' }>>;
  /** Opens a customer session on an `identity` endpoint; later calls of this connection carry it. */
  claim(ref: string, values: Row): Promise<{ session: string; expiresAt: number }>;
  /** Forgets the session `claim` opened. */
  endSession(): void;
  request(method: string, path: string, body?: Json): Promise<Json>;
}

export interface ConnectOptions {
  /** The add-on's key (addon.json). */
  key: string;
  config?: AppConfig;
  mode?: Mode;
  fetch?: typeof fetch;
  window?: Window;
  /** Bridge calls: how long to wait for the dashboard's answer (default 30 000 ms). */
  timeoutMs?: number;
}

export declare function connect(options: ConnectOptions): App;
export declare function readConfig(doc?: Document): AppConfig | null;
export declare function detectMode(win?: Window): Mode;
export declare function listParams(query?: ListQuery): URLSearchParams;
