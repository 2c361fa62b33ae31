import type { MetaWrite, MetaWrites } from '../meta/write-watch.js';
import type { Principal } from './principal.js';
import { API_KEY_PREFIX, KEY_TOUCH_EVERY_MS, RENEW_EVERY_MS, SESSION_IDLE_MS, type IdentityService, type LoadedApiKey, type LoadedSession } from './service.js';
import { hashToken } from './tokens.js';

/** Another replica's change (sign-out, revocation, a role's grants) reaches this one within this. */
export const PRINCIPAL_TTL_MS = 5_000;
/** How often the sessions and keys seen since are written back (each at most once a minute). */
const TOUCH_FLUSH_MS = 5_000;
const MAX_ENTRIES = 20_000;

/** The tables whose rows make up a principal: a write to any of them may change who someone is. */
const IDENTITY_TABLES = new Set(['users', 'user_roles', 'roles', 'role_grants', 'api_keys', 'sessions']);
/** What the cache itself writes back: seeing a session or a key changes no one's access. */
const TOUCH_COLUMNS = new Set(['last_seen_at', 'expires_at', 'last_used_at']);

/** Whether a meta-store write can change a principal someone already holds. */
export function changesPrincipals(w: MetaWrite): boolean {
  if (!IDENTITY_TABLES.has(w.table)) return false;
  // A new session, key or user changes none that exists; a new role assignment or grant does.
  if (w.op === 'insert') return w.table === 'user_roles' || w.table === 'role_grants';
  if (w.op === 'update') return w.columns.length === 0 || w.columns.some((c) => !TOUCH_COLUMNS.has(c));
  return true;
}

interface Entry {
  principal: Principal;
  /** When it was read from the store. */
  at: number;
  /** Sessions: when it ends unless seen again, and when it ends whatever happens. Keys: never. */
  expiresAt: number;
  absoluteExpiresAt: number;
  /** Last written as seen (sessions: last_seen_at; keys: last_used_at). */
  seenAt: number;
}

const sessionEntry = (found: LoadedSession, at: number): Entry => ({
  principal: found.principal,
  at,
  expiresAt: found.expiresAt,
  absoluteExpiresAt: found.absoluteExpiresAt,
  seenAt: found.lastSeenAt,
});

/** A key never ends on its own: it is deleted, which empties the cache. */
const keyEntry = (found: LoadedApiKey, at: number): Entry => ({
  principal: found.principal,
  at,
  expiresAt: Infinity,
  absoluteExpiresAt: Infinity,
  seenAt: found.lastUsedAt ?? -Infinity,
});

/**
 * Sessions and `adm_sk_` keys by the SHA-256 of their token (never the token), so a signed-in
 * request costs no meta-store read. Exact in this process: every write to the identity tables
 * (sign-out, password change, suspension, role and grant changes, key deletion) empties it, at
 * the statement and again when its transaction ends; an entry read before such a write is not
 * kept. Other replicas' writes are seen when an entry is re-read, PRINCIPAL_TTL_MS after it was.
 * `last_seen_at` and `last_used_at` are written in batches, at most once a minute per session or
 * key. Unknown tokens are never kept, so guessing cannot fill it.
 */
export class CachedPrincipals {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private readonly seenSessions = new Set<string>();
  private readonly seenKeys = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  // Made once: a request whose principal is kept allocates nothing to say how to read it.
  private readonly readSession = (token: string) => this.identity.loadSession(token);
  private readonly readApiKey = (token: string) => this.identity.loadApiKey(token);

  constructor(
    private readonly identity: IdentityService,
    writes: MetaWrites,
    private readonly now: () => number = Date.now,
    private readonly onTouchError: (err: unknown) => void = () => undefined,
    flushEveryMs = TOUCH_FLUSH_MS,
  ) {
    this.unsubscribe = writes.on((w) => {
      if (!changesPrincipals(w)) return;
      this.generation++;
      this.entries.clear();
    });
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  /**
   * The principal of a session token: at once when the cache holds it (no async step: every
   * signed-in request asks), else a promise of the store's answer. null: no such live session.
   */
  resolveSession(token: string): Principal | null | Promise<Principal | null> {
    return this.resolve(`s:${hashToken(token)}`, token, this.readSession, sessionEntry);
  }

  /** The principal of an `adm_sk_` token, as resolveSession answers (null for a token that is no key). */
  resolveApiKey(token: string): Principal | null | Promise<Principal | null> {
    if (!token.startsWith(API_KEY_PREFIX)) return null;
    return this.resolve(`k:${hashToken(token)}`, token, this.readApiKey, keyEntry);
  }

  /** Forgets every principal kept (the meta store was moved: decisions MR1). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Writes the sessions and keys seen since the last flush (the timer does this every few seconds). */
  async flush(): Promise<void> {
    const sessions = [...this.seenSessions];
    const keys = [...this.seenKeys];
    this.seenSessions.clear();
    this.seenKeys.clear();
    try {
      await this.identity.touchSessions(sessions);
      await this.identity.touchApiKeys(keys);
    } catch (err) {
      this.onTouchError(err);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe();
    await this.flush();
  }

  get size(): number {
    return this.entries.size;
  }

  private fresh(key: string, now: number): Entry | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (now >= hit.at && now - hit.at < PRINCIPAL_TTL_MS) return hit;
    this.entries.delete(key);
    return undefined;
  }

  /** The kept principal under `key` (noted as seen), or a promise of the store's answer. */
  private resolve<F>(
    key: string,
    token: string,
    read: (token: string) => Promise<F | null>,
    entryOf: (found: F, at: number) => Entry,
  ): Principal | null | Promise<Principal | null> {
    const now = this.now();
    const hit = this.fresh(key, now);
    if (!hit) return this.load(key, now, read(token), entryOf);
    if (now >= hit.expiresAt || now >= hit.absoluteExpiresAt) {
      this.entries.delete(key);
      return null;
    }
    this.seen(hit, now);
    return hit.principal;
  }

  /** The store's answer for a token the cache does not hold, kept unless an identity write came in between. */
  private async load<F>(key: string, now: number, reading: Promise<F | null>, entryOf: (found: F, at: number) => Entry): Promise<Principal | null> {
    const generation = this.generation;
    const found = await reading;
    if (!found) return null;
    const entry = entryOf(found, now);
    this.seen(entry, now);
    this.keep(key, entry, generation);
    return entry.principal;
  }

  /** Notes a session or key as seen, to be written back at most once a minute (a session's idle end moves with it). */
  private seen(entry: Entry, now: number): void {
    const isKey = entry.principal.kind === 'apiKey';
    if (now - entry.seenAt < (isKey ? KEY_TOUCH_EVERY_MS : RENEW_EVERY_MS)) return;
    entry.seenAt = now;
    if (entry.expiresAt !== Infinity) entry.expiresAt = Math.min(now + SESSION_IDLE_MS, entry.absoluteExpiresAt);
    if (isKey) this.seenKeys.add(entry.principal.apiKeyId!);
    else this.seenSessions.add(entry.principal.sessionId!);
  }

  private keep(key: string, entry: Entry, generation: number): void {
    // Read before a write to the identity tables: what it read may already be gone.
    if (generation !== this.generation) return;
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
