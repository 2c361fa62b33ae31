import type { MetaDb } from '../meta/types.js';
import { newId } from '../ids.js';
import { BUILTIN_ROLES, PermissionSet, type BuiltinRole, type Grant, type GrantScope, type PermissionCatalog } from './permissions.js';
import type { Principal } from './principal.js';
import { constantTimeEqual, hashToken, randomToken } from './tokens.js';

export const SESSION_IDLE_MS = 7 * 24 * 3600_000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600_000;
/** last_seen/expiry are written at most this often per session, not on every request. */
export const RENEW_EVERY_MS = 60_000;
export const KEY_TOUCH_EVERY_MS = 60_000;

export const API_KEY_PREFIX = 'adm_sk_';

export interface NewSession {
  token: string;
  id: string;
  expiresAt: number;
}

export interface SessionRequestInfo {
  ip: string | null;
  userAgent: string | null;
}

/**
 * Sessions, API-key resolution and role grants: what the kernel needs to authorise a request.
 * The identity plugins (auth, users, roles, api-keys) build their routes on this.
 */
export interface LoadedSession {
  principal: Principal;
  lastSeenAt: number;
  expiresAt: number;
  absoluteExpiresAt: number;
}

export interface LoadedApiKey {
  principal: Principal;
  lastUsedAt: number | null;
}

export class IdentityService {
  constructor(
    private readonly db: MetaDb,
    private readonly catalog: PermissionCatalog,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh session id and token at every sign-in, so a planted cookie is never promoted. */
  async createSession(userId: string, info: SessionRequestInfo): Promise<NewSession> {
    const now = this.now();
    const token = randomToken(32);
    const id = newId(now);
    const expiresAt = now + SESSION_IDLE_MS;
    await this.db
      .insertInto('sessions')
      .values({
        id,
        token_hash: hashToken(token),
        user_id: userId,
        ip: info.ip,
        user_agent: info.userAgent ? info.userAgent.slice(0, 500) : null,
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
        absolute_expires_at: now + SESSION_ABSOLUTE_MS,
      })
      .execute();
    return { token, id, expiresAt };
  }

  /** A live session by its token (unknown, expired or of an inactive user: null), with its times, writing nothing: kernel/identity/principal-cache.ts decides when to touch. */
  async loadSession(token: string): Promise<LoadedSession | null> {
    const now = this.now();
    const hash = hashToken(token);
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id',
        'sessions.token_hash',
        'sessions.user_id',
        'sessions.last_seen_at',
        'sessions.expires_at',
        'sessions.absolute_expires_at',
        'users.status',
      ])
      .where('sessions.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || !constantTimeEqual(row.token_hash, hash)) return null;
    if (row.status !== 'active' || Number(row.expires_at) <= now || Number(row.absolute_expires_at) <= now) return null;
    const { roleIds, permissions } = await this.rolesOfUser(row.user_id);
    return {
      principal: { kind: 'session', userId: row.user_id, sessionId: row.id, apiKeyId: null, roleIds, permissions },
      lastSeenAt: Number(row.last_seen_at),
      expiresAt: Number(row.expires_at),
      absoluteExpiresAt: Number(row.absolute_expires_at),
    };
  }

  /** Marks sessions seen now, in one statement: the idle expiry moves on, never past the absolute one. */
  async touchSessions(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const now = this.now();
    const idle = now + SESSION_IDLE_MS;
    await this.db
      .updateTable('sessions')
      .set((eb) => ({
        last_seen_at: now,
        expires_at: eb.case().when('absolute_expires_at', '<', idle).then(eb.ref('absolute_expires_at')).else(idle).end(),
      }))
      .where('id', 'in', ids)
      .execute();
  }

  /** A live key by its token, writing nothing. */
  async loadApiKey(token: string): Promise<LoadedApiKey | null> {
    if (!token.startsWith(API_KEY_PREFIX)) return null;
    const hash = hashToken(token);
    // A key made by a user stops while that user is suspended or gone.
    const row = await this.db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.created_by')
      .select([
        'api_keys.id',
        'api_keys.key_hash',
        'api_keys.role_id',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'api_keys.created_by',
        'users.status as creator_status',
      ])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null || !constantTimeEqual(row.key_hash, hash)) return null;
    if (row.created_by !== null && row.creator_status !== 'active') return null;
    // A key never holds more than its creator holds now: demoting the creator narrows the key.
    const role = await this.permissionsOfRoles([row.role_id]);
    const permissions = row.created_by === null ? role : role.intersect((await this.rolesOfUser(row.created_by)).permissions);
    return {
      principal: { kind: 'apiKey', userId: null, sessionId: null, apiKeyId: row.id, roleIds: [row.role_id], permissions },
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    };
  }

  async touchApiKeys(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('api_keys').set({ last_used_at: this.now() }).where('id', 'in', ids).execute();
  }

  /**
   * Whether a principal resolved earlier still holds: its session is live and its user active,
   * or its key unrevoked. Long-lived channels (WebSocket, SSE) re-check on every heartbeat.
   */
  async isStillValid(principal: Principal): Promise<boolean> {
    const now = this.now();
    if (principal.kind === 'session' && principal.sessionId) {
      const row = await this.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.expires_at', 'sessions.absolute_expires_at', 'users.status'])
        .where('sessions.id', '=', principal.sessionId)
        .executeTakeFirst();
      return !!row && row.status === 'active' && Number(row.expires_at) > now && Number(row.absolute_expires_at) > now;
    }
    if (principal.kind === 'apiKey' && principal.apiKeyId) {
      const row = await this.db
        .selectFrom('api_keys')
        .leftJoin('users', 'users.id', 'api_keys.created_by')
        .select(['api_keys.revoked_at', 'api_keys.created_by', 'users.status as creator_status'])
        .where('api_keys.id', '=', principal.apiKeyId)
        .executeTakeFirst();
      return !!row && row.revoked_at === null && (row.created_by === null || row.creator_status === 'active');
    }
    return false;
  }

  async endSession(sessionId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', sessionId).execute();
  }

  /** Ends every session of the user, except `keepSessionId` (the one changing the password). */
  async endSessionsOf(userId: string, keepSessionId?: string): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepSessionId) q = q.where('id', '!=', keepSessionId);
    await q.execute();
  }

  /**
   * A single-use set-password token (a reset, or an invitation's set-password link). Issuing
   * one withdraws the user's earlier unused tokens of the same purpose.
   */
  async issuePasswordToken(userId: string, purpose: 'reset' | 'invite', ttlMs: number): Promise<string> {
    const now = this.now();
    const token = randomToken(32);
    await this.db.deleteFrom('password_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
    await this.db
      .insertInto('password_tokens')
      .values({ token_hash: hashToken(token), user_id: userId, purpose, created_at: now, expires_at: now + ttlMs, used_at: null })
      .execute();
    return token;
  }

  /**
   * Marks the token used and answers whose it was; null when unknown, used or expired. The
   * conditional update makes two simultaneous uses succeed at most once.
   */
  async consumePasswordToken(token: string): Promise<{ userId: string; purpose: 'reset' | 'invite' } | null> {
    const now = this.now();
    const hash = hashToken(token);
    const row = await this.db
      .selectFrom('password_tokens')
      .select(['user_id', 'purpose', 'expires_at', 'used_at'])
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.used_at !== null || Number(row.expires_at) <= now) return null;
    const res = await this.db
      .updateTable('password_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return null;
    return { userId: row.user_id, purpose: row.purpose };
  }

  async rolesOfUser(userId: string): Promise<{ roleIds: string[]; permissions: PermissionSet }> {
    const rows = await this.db
      .selectFrom('user_roles')
      .leftJoin('role_grants', 'role_grants.role_id', 'user_roles.role_id')
      .select(['user_roles.role_id', 'role_grants.permission', 'role_grants.scope'])
      .where('user_roles.user_id', '=', userId)
      .execute();
    return this.grantsFromRows(rows);
  }

  async permissionsOfRoles(roleIds: string[]): Promise<PermissionSet> {
    if (roleIds.length === 0) return new PermissionSet(false, []);
    const rows = await this.db.selectFrom('role_grants').select(['role_id', 'permission', 'scope']).where('role_id', 'in', roleIds).execute();
    const withEmpty = [...rows, ...roleIds.map((role_id) => ({ role_id, permission: null, scope: null }))];
    return this.grantsFromRows(withEmpty).permissions;
  }

  private grantsFromRows(rows: Array<{ role_id: string; permission: string | null; scope: string | null }>): { roleIds: string[]; permissions: PermissionSet } {
    const roleIds = [...new Set(rows.map((r) => r.role_id))];
    if (roleIds.includes('admin')) return { roleIds, permissions: new PermissionSet(true, []) };
    const grants: Grant[] = [];
    for (const role of roleIds) {
      if ((BUILTIN_ROLES as readonly string[]).includes(role)) grants.push(...this.catalog.builtinGrants(role as BuiltinRole));
    }
    for (const r of rows) {
      if (r.permission) grants.push({ permission: r.permission, scope: r.scope ? (JSON.parse(r.scope) as GrantScope) : null });
    }
    return { roleIds, permissions: new PermissionSet(false, grants) };
  }
}
