import { createHash, randomBytes } from 'node:crypto';
import type { AddonConnect } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type Kernel, outboundFetch, type SecretBox } from '../../../kernel/api.js';
import type { InstalledAddon } from '../lifecycle/installed.js';
import { openSettings } from '../lifecycle/settings-values.js';
import type { AddonsOptions } from '../options.js';
import type { AddonsDb } from '../tables.js';

/** How long an OAuth state opens `complete` (D29). */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;
/** An access token this close to its expiry is refreshed before the add-on gets it. */
export const REFRESH_MARGIN_MS = 60_000;
/** Spent and expired states are kept this long (so a replay answers USED or EXPIRED, not INVALID), then swept. */
const STATE_KEEP_MS = 24 * 60 * 60_000;
const FIELD_MAX = 10_000;

type SecretConnect = Extract<AddonConnect, { kind: 'secret' }>;
type OAuthConnect = Extract<AddonConnect, { kind: 'oauth2' }>;

interface StoredSecret {
  kind: 'secret';
  fields: Record<string, string>;
}
interface StoredOAuth {
  kind: 'oauth2';
  accessToken: string;
  tokenType: string;
  refreshToken: string | null;
  expiresAt: number | null;
  scope: string | null;
}
type Stored = StoredSecret | StoredOAuth;

export interface ConnectionStatus {
  connectedAt: number;
  expiresAt: number | null;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();
const stateHash = (state: string) => sha256(state).toString('hex');

function connectOf<K extends AddonConnect['kind']>(addon: InstalledAddon, kind: K): Extract<AddonConnect, { kind: K }> {
  const c = addon.manifest.connect;
  if (!c) throw new AppError('ADDON_NOT_CONNECTABLE', { message: 'The add-on declares no connect.', params: { key: addon.key, reason: 'none' } });
  if (c.kind !== kind)
    throw new AppError('ADDON_NOT_CONNECTABLE', {
      message: c.kind === 'secret' ? 'The add-on connects with secret fields: POST /add-ons/{key}/connect.' : 'The add-on connects with OAuth 2: start it.',
      params: { key: addon.key, reason: 'kind', kind: c.kind },
    });
  return c as Extract<AddonConnect, { kind: K }>;
}

/**
 * Connect (DESIGN D29): an add-on's secret fields or OAuth 2 tokens, sealed under their own
 * key (`addon-connections`), never returned and never logged. The add-on reads them as
 * `ctx.connection`, built for its own key at each of its calls (access tokens refreshed first
 * when they expire).
 */
export class AddonConnections {
  private readonly box: SecretBox;
  /** One refresh at a time per add-on in this process: concurrent calls share it. */
  private readonly refreshing = new Map<string, Promise<StoredOAuth>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly db: AddonsDb,
    private readonly settingsBox: SecretBox,
    private readonly options: AddonsOptions = {},
  ) {
    this.box = kernel.secrets('addon-connections');
  }

  async status(key: string): Promise<ConnectionStatus | null> {
    return (await this.statuses([key])).get(key) ?? null;
  }

  /** The connections of these add-ons, by key (one query for a list). */
  async statuses(keys: readonly string[]): Promise<Map<string, ConnectionStatus>> {
    if (keys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('addon_connections')
      .select(['addon_key', 'connected_at', 'expires_at'])
      .where('addon_key', 'in', [...keys])
      .execute();
    return new Map(rows.map((r) => [r.addon_key, { connectedAt: Number(r.connected_at), expiresAt: r.expires_at === null ? null : Number(r.expires_at) }]));
  }

  private async store(key: string, stored: Stored, db: AddonsDb = this.db): Promise<ConnectionStatus> {
    const now = this.kernel.now();
    const expiresAt = stored.kind === 'oauth2' ? stored.expiresAt : null;
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('addon_connections').where('addon_key', '=', key).execute();
      await trx
        .insertInto('addon_connections')
        .values({
          addon_key: key,
          kind: stored.kind,
          sealed: this.box.encrypt(JSON.stringify(stored)),
          connected_at: now,
          expires_at: expiresAt,
          updated_at: now,
        })
        .execute();
    });
    return { connectedAt: now, expiresAt };
  }

  /** DELETE /add-ons/{key}/connect, and the removal of an add-on: true when something was stored. */
  async forget(key: string, db: AddonsDb = this.db): Promise<boolean> {
    const res = await db.deleteFrom('addon_connections').where('addon_key', '=', key).executeTakeFirst();
    await db.deleteFrom('addon_oauth_states').where('addon_key', '=', key).execute();
    return Number(res.numDeletedRows) > 0;
  }

  /** POST /add-ons/{key}/connect: every declared field, a non-empty string (an optional one may be left out or empty); nothing else. */
  async connectSecret(addon: InstalledAddon, fields: Record<string, unknown>): Promise<ConnectionStatus> {
    const c: SecretConnect = connectOf(addon, 'secret');
    const declared = new Set(c.fields.map((f) => f.name));
    const issues: Array<{ path: string; code: string; message: string }> = [];
    for (const name of Object.keys(fields))
      if (!declared.has(name)) issues.push({ path: `body.fields.${name}`, code: 'unrecognized_keys', message: `${name} is not a field the add-on declares.` });
    const values: Record<string, string> = {};
    for (const f of c.fields) {
      const v = fields[f.name];
      if (f.optional === true && (v === undefined || v === '')) continue;
      if (typeof v !== 'string' || !v.length) issues.push({ path: `body.fields.${f.name}`, code: 'required', message: `${f.label} is required.` });
      else if (v.length > FIELD_MAX) issues.push({ path: `body.fields.${f.name}`, code: 'too_big', message: `At most ${FIELD_MAX} characters.` });
      else values[f.name] = v;
    }
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
    return this.store(addon.key, { kind: 'secret', fields: values });
  }

  private client(addon: InstalledAddon, c: OAuthConnect): { id: string; secret: string | null } {
    const settings = openSettings(addon.settings, this.settingsBox);
    const id = settings[c.clientIdSetting];
    const secret = settings[c.clientSecretSetting];
    if (typeof id !== 'string' || !id)
      throw new AppError('ADDON_NOT_CONNECTABLE', {
        message: `Set the add-on's ${c.clientIdSetting} setting (the OAuth client id) first.`,
        params: { key: addon.key, reason: 'client_settings', setting: c.clientIdSetting },
      });
    return { id, secret: typeof secret === 'string' && secret ? secret : null };
  }

  /** POST …/connect/oauth/start: the provider's authorize URL with PKCE S256; the state opens `complete` once, for this session, for 10 minutes. */
  async startOAuth(addon: InstalledAddon, sessionId: string, redirectUri: string): Promise<{ authorizeUrl: string; state: string; expiresAt: number }> {
    const c = connectOf(addon, 'oauth2');
    const client = this.client(addon, c);
    const now = this.kernel.now();
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(48).toString('base64url');
    await this.db
      .deleteFrom('addon_oauth_states')
      .where('expires_at', '<', now - STATE_KEEP_MS)
      .execute();
    await this.db
      .insertInto('addon_oauth_states')
      .values({
        state_hash: stateHash(state),
        addon_key: addon.key,
        session_id: sessionId,
        verifier: this.box.encrypt(verifier),
        redirect_uri: redirectUri,
        created_at: now,
        expires_at: now + OAUTH_STATE_TTL_MS,
        used_at: null,
      })
      .execute();
    const url = new URL(c.authorizeUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.id);
    url.searchParams.set('redirect_uri', redirectUri);
    if (c.scopes.length) url.searchParams.set('scope', c.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', sha256(verifier).toString('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    return { authorizeUrl: url.toString(), state, expiresAt: now + OAUTH_STATE_TTL_MS };
  }

  /** POST …/connect/oauth/complete: spends the state, exchanges the code at tokenUrl, stores the tokens. */
  async completeOAuth(addon: InstalledAddon, sessionId: string, code: string, state: string): Promise<ConnectionStatus> {
    const c = connectOf(addon, 'oauth2');
    const hash = stateHash(state);
    const row = await this.db.selectFrom('addon_oauth_states').selectAll().where('state_hash', '=', hash).executeTakeFirst();
    if (!row || row.addon_key !== addon.key || row.session_id !== sessionId) throw new AppError('ADDON_OAUTH_STATE_INVALID');
    if (row.used_at !== null) throw new AppError('ADDON_OAUTH_STATE_USED');
    const now = this.kernel.now();
    if (Number(row.expires_at) <= now) throw new AppError('ADDON_OAUTH_STATE_EXPIRED');
    // Spent before the exchange, whatever its outcome: one state, one attempt.
    const claimed = await this.db
      .updateTable('addon_oauth_states')
      .set({ used_at: now })
      .where('state_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) throw new AppError('ADDON_OAUTH_STATE_USED');
    const client = this.client(addon, c);
    const tokens = await this.tokenRequest(c, client, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: row.redirect_uri,
      code_verifier: this.box.decrypt(row.verifier),
    });
    return this.store(addon.key, { kind: 'oauth2', ...tokens });
  }

  /** The token endpoint: a form POST under the kernel's outbound policy (network features on, no private addresses). */
  private async tokenRequest(
    c: OAuthConnect,
    client: { id: string; secret: string | null },
    params: Record<string, string>,
  ): Promise<Omit<StoredOAuth, 'kind'>> {
    const form = new URLSearchParams(params);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (client.secret !== null && c.clientAuth !== 'body') {
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers['authorization'] = `Basic ${Buffer.from(`${enc(client.id)}:${enc(client.secret)}`).toString('base64')}`;
    } else {
      form.set('client_id', client.id);
      if (client.secret !== null) form.set('client_secret', client.secret);
    }
    const host = new URL(c.tokenUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    let res;
    try {
      res = await outboundFetch(
        c.tokenUrl,
        { method: 'POST', headers, body: form.toString() },
        {
          allowedHosts: [host],
          networkFeatures: this.kernel.config.networkFeatures,
          maxBodyBytes: 256 * 1024,
          ...(this.options.allowLoopback?.('fetch') ? { allowLoopbackForTests: true } : {}),
        },
      );
    } catch (err) {
      if (err instanceof AppError && err.code === 'ADDON_FETCH_FAILED')
        throw new AppError('ADDON_OAUTH_PROVIDER_ERROR', { params: { reason: 'unreachable', status: null, error: null } });
      throw err;
    }
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = /json/i.test(res.headers['content-type'] ?? '') || res.body.trimStart().startsWith('{') ? JSON.parse(res.body) : null;
      body =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : Object.fromEntries(new URLSearchParams(res.body));
    } catch {
      body = {};
    }
    // The provider's error code (RFC 6749 §5.2: an ASCII word such as invalid_grant); never its description, which may echo anything.
    const error = typeof body['error'] === 'string' && /^[\x20-\x7e]{1,100}$/.test(body['error']) ? body['error'] : null;
    const accessToken = body['access_token'];
    if (res.status < 200 || res.status > 299 || error !== null || typeof accessToken !== 'string' || !accessToken)
      throw new AppError('ADDON_OAUTH_PROVIDER_ERROR', {
        params: { reason: res.status >= 200 && res.status <= 299 && error === null ? 'no_token' : 'refused', status: res.status, error },
      });
    const expiresIn = Number(body['expires_in']);
    return {
      accessToken,
      tokenType: typeof body['token_type'] === 'string' ? body['token_type'] : 'Bearer',
      refreshToken: typeof body['refresh_token'] === 'string' && body['refresh_token'] ? body['refresh_token'] : null,
      expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? this.kernel.now() + Math.floor(expiresIn * 1000) : null,
      scope: typeof body['scope'] === 'string' ? body['scope'] : null,
    };
  }

  private async refresh(addon: InstalledAddon, c: OAuthConnect, stored: StoredOAuth): Promise<StoredOAuth> {
    const running = this.refreshing.get(addon.key);
    if (running) return running;
    const p = (async () => {
      const tokens = await this.tokenRequest(c, this.client(addon, c), { grant_type: 'refresh_token', refresh_token: stored.refreshToken! });
      // A provider that does not rotate refresh tokens sends none: the old one stays good.
      const next: StoredOAuth = { kind: 'oauth2', ...tokens, refreshToken: tokens.refreshToken ?? stored.refreshToken, scope: tokens.scope ?? stored.scope };
      const now = this.kernel.now();
      await this.db
        .updateTable('addon_connections')
        .set({ sealed: this.box.encrypt(JSON.stringify(next)), expires_at: next.expiresAt, updated_at: now })
        .where('addon_key', '=', addon.key)
        .where('kind', '=', 'oauth2')
        .execute();
      return next;
    })();
    this.refreshing.set(addon.key, p);
    try {
      return await p;
    } finally {
      this.refreshing.delete(addon.key);
    }
  }

  /**
   * `ctx.connection` of one call of this add-on (and only of it): its secret fields as declared,
   * or `{accessToken, tokenType, expiresAt, scope}` (refreshed first when expired or about to;
   * the refresh token stays with the instance). Null when not connected.
   */
  async forAddon(addon: InstalledAddon): Promise<Record<string, string> | null> {
    const c = addon.manifest.connect;
    if (!c) return null;
    const row = await this.db.selectFrom('addon_connections').select(['kind', 'sealed']).where('addon_key', '=', addon.key).executeTakeFirst();
    if (!row || row.kind !== c.kind) return null;
    let stored = JSON.parse(this.box.decrypt(row.sealed)) as Stored;
    if (stored.kind === 'secret') return { ...stored.fields };
    if (c.kind === 'oauth2' && stored.expiresAt !== null && stored.refreshToken && stored.expiresAt - REFRESH_MARGIN_MS <= this.kernel.now()) {
      try {
        stored = await this.refresh(addon, c, stored);
      } catch (err) {
        // The call goes on with what is stored; the add-on sees expiresAt in the past.
        this.kernel.log.warn(
          { addon: addon.key, err: { code: (err as AppError).code ?? null, params: (err as AppError).params ?? null } },
          "refreshing an add-on's OAuth token failed",
        );
      }
    }
    return {
      accessToken: stored.accessToken,
      tokenType: stored.tokenType,
      expiresAt: stored.expiresAt === null ? '' : new Date(stored.expiresAt).toISOString(),
      scope: stored.scope ?? '',
    };
  }
}
