/**
 * The public API's control plane as the data plane (plugins/public-api) reads it, and the public
 * side of apps (`apps`) the add-ons plugin writes: `kernel.plugin(publicAdminRef)` from a plugin
 * that requires 'public-admin'. Everything here is plain data; the data plane enforces it.
 */

import { defineServiceRef, type MetaDb } from '../../kernel/api.js';
import type { StoredKey } from './endpoints/definition.js';
import type { FilterOp, PublicMethod } from '../../addons-sdk/src/manifest/endpoint.js';
import type { AddonEndpoint } from '../../addons-sdk/src/manifest/index.js';

export { FILTER_OPS, PUBLIC_METHODS, type FilterOp, type PublicMethod } from '../../addons-sdk/src/manifest/endpoint.js';

/**
 * A default filter: part of every statement the endpoint runs (reads and writes), never removable
 * by a caller. `value` is a JSON scalar, an array of them for `in`, or a boolean for `null`.
 */
export interface DefaultFilter {
  column: string;
  op: FilterOp;
  value: string | number | boolean | null | Array<string | number | boolean | null>;
}

export type WeekDay = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** `[['09:00','12:00'],['14:00','22:00']]`: open intervals of one day, venue clock, `HH:MM`. */
export type OpeningHours = Partial<Record<WeekDay, Array<[string, string]>>>;

/** Slot rules of an endpoint that takes bookings (a bookings table with a per-slot limit). */
export interface BookingRules {
  /** The column holding the booked time (a datetime). */
  timeColumn: string;
  /** The column holding the party size; null = every booking takes one place. */
  partyColumn: string | null;
  /** Places per slot (the sum of party sizes of the bookings in one slot may not exceed it). */
  capacity: number;
  slotMinutes: number;
  openingHours: OpeningHours;
  /** How many days ahead a guest may book; a later time is `full`. */
  windowDays: number;
  /** A guest may cancel/change only up to this many minutes before the booking (PUBLIC_TOO_LATE). */
  cancelBeforeMinutes: number;
  /** The guest's e-mail column: when the written row holds a value, the confirmation is sent. */
  emailColumn: string | null;
  /** The booking code column (shown in the confirmation, claimed with). */
  codeColumn: string | null;
  /** The guest's language column, for the confirmation's locale (fallback en). */
  localeColumn: string | null;
}

/**
 * A window around a row's time outside which a guest (with a customer session) cannot act on
 * their own row: PUBLIC_TOO_EARLY before `opensBeforeMinutes` ahead of the row's time.
 */
export interface TimeWindow {
  column: string;
  opensBeforeMinutes: number;
}

export type ResponseShape = 'wrapped' | 'array' | 'single';

/** The full definition of one public endpoint, stored or generated (virtual). */
export interface EndpointDefinition {
  /** The stored scope's id; null while the endpoint is virtual (generated, never granted or edited). */
  id: string | null;
  /** The endpoint's name in `/public/records/{ref}`; unique across connections. */
  ref: string;
  connectionId: string;
  /** The table or view, by its SC2 table ref. */
  table: string;
  virtual: boolean;
  /** True for the table's generated endpoint (stored or not); false for extra endpoints an admin created. */
  generated: boolean;
  /** Methods the endpoint offers; a key must also hold the method in its grant. */
  methods: PublicMethod[];
  /** Columns returned (and the only ones a caller may read, filter or sort on). Never secret or `sensitive` ones. */
  columns: string[];
  /** Columns a caller may set on POST/PATCH/PUT/BATCH: exposed ones, plus `sensitive` ones (written, never read back). */
  writable: string[];
  /** Values written on create when the caller did not send the column (may name non-exposed columns). */
  defaults: Record<string, unknown>;
  /** Rows the endpoint can reach at all; ANDed into every statement. */
  filters: DefaultFilter[];
  /** Subsets of `columns` a caller may filter, search (text match) and sort on. */
  filterable: string[];
  searchable: string[];
  orderable: string[];
  /** Columns a customer claims with (`POST /public/claim`), e.g. ['code','email']; empty = no claim. */
  identity: string[];
  /** Columns never returned even if listed elsewhere (the data plane strips them last). */
  sensitive: string[];
  allowCascade: boolean;
  shape: ResponseShape;
  /** Requests per minute (per visitor for a browser key, per key for a server key). */
  rateLimit: number;
  /** IANA zone of the venue's clock. */
  timeZone: string;
  /** Only a server key may be granted it. */
  serviceRole: boolean;
  booking: BookingRules | null;
  window: TimeWindow | null;
  /** Every call needs `X-Svc-Public-Session`, and reaches only the claimed rows. */
  needsSession: boolean;
  /** Primary key columns; empty for a table without one (then methods are ['GET']). */
  pk: string[];
  /**
   * How a new row gets its key when the caller sends none: 'database' (auto-increment or a
   * default), 'uuid' (the data plane generates a random UUID), or null (the caller must send
   * it, which only a stored endpoint with the key columns writable allows).
   */
  keyFill: 'database' | 'uuid' | null;
  /** Set when an installed app declared the endpoint; its app keys may grant only these. */
  addonKey: string | null;
}

export interface PublicKeyGrant {
  ref: string;
  methods: PublicMethod[];
}

export interface PublicKey {
  id: string;
  name: string;
  kind: 'browser' | 'server';
  /** The first characters of the secret (`adm_pub_xxxx`), for recognising it in lists. */
  prefix: string;
  grants: PublicKeyGrant[];
  /** ms since epoch; null = never. */
  expiresAt: number | null;
  createdAt: number;
  /**
   * Set for an app key: its app and the budget multiplier (peak 1..5) from the app's manifest.
   * `instance`: the app's named instance the key belongs to (D28), null for the default
   * instance's key; such a key reaches an app endpoint only as `rules[ref]` narrows it.
   */
  appKey: { addonKey: string; peak: number; instance: string | null; rules: Record<string, InstanceRule> | null } | null;
}

/**
 * What an instance's key (D28) puts in place of an app endpoint's own rules: its default
 * filters (the endpoint's, with the instance column naming the instance), its defaults and its
 * booking rules and clock (from the instance's settings).
 */
export interface InstanceRule {
  filters: DefaultFilter[];
  defaults: Record<string, unknown>;
  booking: BookingRules | null;
  timeZone: string;
}

export interface PublicApiState {
  /** The operator's switch (off by default). */
  enabled: boolean;
  /** False when SVC_PUBLIC_API_ORIGINS is unset: the public routes are not served at all. */
  served: boolean;
  /** SVC_PUBLIC_API_ORIGINS, exact origins. */
  origins: string[];
}

/** The booking confirmation template the data plane sends (D15: per locale, fallback en). */
export const BOOKING_CONFIRMATION_TEMPLATE = 'public.booking-confirmation';
/** Variables of BOOKING_CONFIRMATION_TEMPLATE; all strings, already formatted for the guest. */
export interface BookingConfirmationVars {
  code: string;
  /** The booking time on the venue's clock, formatted for the guest's locale. */
  time: string;
  party: string;
  /** The cancellation window in words ("2 hours"). */
  cancelWindow: string;
  manageLink: string;
  venue?: string;
}

/** The part of an EndpointDefinition a stored row keeps as JSON; the rest comes from the row and the schema. */
export type StoredDefinition = Pick<EndpointDefinition, StoredKey>;

/** One endpoint of an app, as its install asks for it. */
export interface AppEndpointRequest {
  /** The served ref, `<key>-<ref>` (D23). */
  ref: string;
  /** The table's name on the connection (`<key>__<table>`). */
  table: string;
  definition: Omit<AddonEndpoint, 'ref' | 'table'>;
}

/** An app's endpoint as it will be stored: its definition checked against the connection's schema. */
export interface PreparedAppEndpoint {
  ref: string;
  table: string;
  definition: StoredDefinition;
}

/** A named instance of an app (D28) and what its key reaches of each endpoint (by served ref). */
export interface AppInstanceKeys {
  id: string;
  name: string;
  rules: Record<string, InstanceRule>;
}

/** An instance key as written: its secret only when it was created now. */
export interface InstanceKeyWritten {
  instance: string;
  keyId: string;
  prefix: string;
  secret: string | null;
}

/** What AppEndpoints.write stores of an app. */
export interface AppEndpointsWrite {
  addonKey: string;
  name: string;
  connectionId: string;
  peak: number;
  endpoints: PreparedAppEndpoint[];
  createdBy: string | null;
  /**
   * The app is disabled (D27): every key of it, one created now included, is written
   * suspended; false restarts them. Keys are written only here, so none escapes its app's state.
   */
  suspended: boolean;
  /**
   * The app's named instances (D28), each with what its key reaches of every endpoint: a key
   * each, granting what the default key grants. Keys of instances left out are revoked.
   */
  instances?: AppInstanceKeys[];
}

/** What AppEndpoints.write wrote: the app key's secret when it was created now, and every key it touched. */
export interface AppEndpointsWritten {
  keyId: string | null;
  secret: string | null;
  instanceKeys: InstanceKeyWritten[];
  keyIds: string[];
}

/**
 * The public side of an app (D23, D27, D28): its endpoints and its keys, written inside the
 * install's meta transaction (`trx`), so an install that fails leaves no endpoint or key behind.
 */
export interface PublicAdminApps {
  /**
   * The definitions the endpoints will have, checked against the connection's schema as it is
   * now (the app's tables must already exist there). A ref another endpoint holds → 409
   * ADDON_CONFLICT.
   */
  prepare(addonKey: string, connectionId: string, requests: AppEndpointRequest[]): Promise<PreparedAppEndpoint[]>;
  /**
   * Replaces the app's endpoints with `input.endpoints` and gives its key exactly those grants;
   * creates the key when the app has none.
   */
  write(trx: MetaDb, input: AppEndpointsWrite): Promise<AppEndpointsWritten>;
  /** Removes the app's endpoints and key (D27: the key goes with the app). */
  remove(trx: MetaDb, addonKey: string): Promise<{ endpoints: number; keys: number }>;
  /** Stops or restarts the app's keys (its instances' too) with its app (D27). Answers the keys' ids. */
  setSuspended(trx: MetaDb, addonKey: string, suspended: boolean): Promise<string[]>;
  /** After the install's transaction committed (or rolled back): caches and other replicas. */
  changed(keyIds: string[]): Promise<void>;
  /** The live app keys of these add-ons, by add-on key, without opening their secrets. */
  appKeyIds(addonKeys: readonly string[]): Promise<Map<string, string>>;
  /** The live keys of an app's named instances (D28): instance id → key id and prefix. */
  instanceKeys(addonKey: string): Promise<Map<string, { id: string; prefix: string }>>;
  /** The app key's secret: its default instance's (`instance` null) or a named instance's. */
  appKeySecret(addonKey: string, instance?: string | null): Promise<{ id: string; secret: string } | null>;
}

export interface PublicAdminProvides {
  /**
   * The switch. Cached for at most 2 s; a local change applies to the very next request, a
   * change made on another replica within 2 s.
   */
  state(): Promise<PublicApiState>;
  /** Whether the switch is on, when the cached state is still fresh; null when only state() can tell. */
  enabledNow(): boolean | null;
  /**
   * The live key for a bearer token, by its SHA-256 (compared in constant time); null when
   * unknown, revoked or expired (expiresAt <= now). Not cached here: a revocation is seen by
   * the very next call on every replica that shares the meta store.
   */
  keyForToken(token: string): Promise<PublicKey | null>;
  /**
   * An endpoint by ref (exact): stored, else the generated one of a table; null when none.
   * Cached per process for at most 2 s; a local edit of endpoints or keys applies at once, other
   * changes (another replica, a re-introspection, schema overrides) within 2 s. An endpoint
   * whose table or rule columns are gone comes back with `methods: []`: it offers nothing.
   */
  endpoint(ref: string): Promise<EndpointDefinition | null>;
  /** Every endpoint (stored and virtual), optionally of one connection; sorted by ref. */
  endpoints(connectionId?: string): Promise<EndpointDefinition[]>;
  /** Does the key hold `method` on `ref`? (Only the grant; the endpoint's own methods are checked by the caller.) */
  grants(key: PublicKey, ref: string, method: PublicMethod): boolean;
  /**
   * For a data plane that caches keys: called with a key id when the key is revoked or rotated
   * (or has just expired), and with '*' when the switch goes off. Local changes call it at once;
   * other replicas' changes are polled from the store every 2 s while a listener exists (so within
   * the seed's 5 s). The simplest correct data plane caches no keys at all. Returns an unsubscribe.
   */
  onRevoked(listener: (keyId: string) => void): () => void;
  /** Counts `n` requests for the keys page's requests-in-24-hours figure (memory; flushed every minute). */
  recordUsage(keyId: string, n?: number): void;
  /** Called when endpoints or the tables behind them changed in this process (an app's install or upgrade). */
  onEndpointsChanged(listener: () => void): () => void;
  /** Whether a live public key made by an operator exists (not revoked, not expired, not an app's): the onboarding's step. */
  hasLiveKey(): Promise<boolean>;
  /** The public side of apps (endpoints and app keys), for the add-ons plugin. */
  readonly apps: PublicAdminApps;
}

/** `kernel.plugin(publicAdminRef)` from a plugin that requires 'public-admin'. */
export const publicAdminRef = defineServiceRef<PublicAdminProvides>('public-admin');
