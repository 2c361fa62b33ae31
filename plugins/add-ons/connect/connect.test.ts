import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { addApiKey, bootWithAdmin, sessionFor } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { addonsReachingLoopback, fakeOAuthProvider, type FakeOAuthProvider, packFixture, uploadPackage } from '../testing.js';

/** Every secret the story handles: none may appear in a response (but an add-on's own action's) or a log line. */
const SECRETS = {
  apiKey: `sk-live-${randomBytes(12).toString('hex')}`,
  account: `acct-${randomBytes(12).toString('hex')}`,
  clientSecret: `cs-${randomBytes(12).toString('hex')}`,
  access1: `at1-${randomBytes(12).toString('hex')}`,
  access2: `at2-${randomBytes(12).toString('hex')}`,
  refresh: `rt-${randomBytes(12).toString('hex')}`,
  code: `code-${randomBytes(12).toString('hex')}`,
};
const CLIENT_ID = 'client-123';

const PEEK = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ actions: { peek: async (ctx) => ctx.connection } });
`;
const base = (key: string, extra: Partial<AddonManifestInput>): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  actions: ['peek'],
  ...extra,
});

describe('connect (D29): secret fields and OAuth 2, reaching only the add-on that connected', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId: string;
  let provider: FakeOAuthProvider;
  let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
  const logLines: string[] = [];
  /** Every response body the API gave staff, to prove no secret ever came back. */
  const seen: string[] = [];

  const install = async (manifest: AddonManifestInput, settings: Record<string, unknown> = {}) => {
    const pkg = await packFixture(manifest, PEEK);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = (await admin.get(`/api/v1/add-ons/${manifest.key}/plan?version=1.0.0`)).body.data.plan;
    const res = await admin.post('/api/v1/add-ons', { key: manifest.key, version: '1.0.0', planHash: plan.hash, settings });
    expect(res.status, res.text).toBe(201);
    return plan;
  };
  const call = async (c: HttpClient, method: 'get' | 'post' | 'delete', path: string, body?: unknown) => {
    const res = method === 'get' ? await c.get(path) : method === 'delete' ? await c.delete(path) : await c.post(path, body);
    seen.push(res.text);
    return res;
  };
  /** The add-on's own action, called by staff: what its code sees as ctx.connection. */
  const peek = async (key: string) => {
    const res = await admin.post(`/api/v1/public/apps/${key}/actions/peek`, { input: null });
    expect(res.status, res.text).toBe(200);
    return res.body.data.result;
  };
  const listed = async (key: string) => (await call(admin, 'get', '/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === key);
  const start = async (c: HttpClient = admin) => {
    const res = await call(c, 'post', '/api/v1/add-ons/oauthy/connect/oauth/start');
    expect(res.status, res.text).toBe(200);
    return res.body.data as { authorizeUrl: string; state: string; redirectUri: string; expiresAt: number };
  };
  /** What the provider's authorize page does: remembers the challenge under a code it hands back. */
  const authorize = (authorizeUrl: string, code: string) => {
    const u = new URL(authorizeUrl);
    provider.codes.set(code, u.searchParams.get('code_challenge')!);
  };
  const complete = (code: string, state: string, c: HttpClient = admin) => call(c, 'post', '/api/v1/add-ons/oauthy/connect/oauth/complete', { code, state });

  beforeAll(async () => {
    provider = await fakeOAuthProvider({
      clientId: CLIENT_ID,
      clientSecret: SECRETS.clientSecret,
      access: [SECRETS.access1, SECRETS.access2],
      refresh: SECRETS.refresh,
    });
    ({ inst, admin, adminId } = await bootWithAdmin({ ...addonsReachingLoopback('fetch'), env: { SVC_NETWORK_FEATURES: 'true' }, now: () => clock, logLines }));
    await install(
      base('vault', {
        connect: {
          kind: 'secret',
          fields: [
            { name: 'apiKey', label: 'API key' },
            { name: 'account', label: 'Account', description: 'Your account id.' },
          ],
        },
      }),
    );
    const oauthPlan = await install(
      base('oauthy', {
        settings: {
          type: 'object',
          properties: { clientId: { type: 'string' }, clientSecret: { type: 'string', secret: true } },
          required: [],
        },
        connect: {
          kind: 'oauth2',
          authorizeUrl: 'https://provider.example/authorize?audience=api',
          tokenUrl: provider.tokenUrl,
          scopes: ['read', 'write'],
          clientIdSetting: 'clientId',
          clientSecretSetting: 'clientSecret',
        },
      }),
      { clientId: CLIENT_ID, clientSecret: SECRETS.clientSecret },
    );
    await install(base('plain', {}));
    // The operator saw where the instance will go for tokens before installing.
    expect(oauthPlan.connect).toEqual({
      kind: 'oauth2',
      fields: [],
      authorizeUrl: 'https://provider.example/authorize?audience=api',
      tokenUrl: provider.tokenUrl,
      scopes: ['read', 'write'],
    });
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await provider?.close();
  });

  it('stores secret fields checked against the manifest, shows only that it is connected, and forgets them', async () => {
    const before = await listed('vault');
    expect(before).toMatchObject({
      connect: {
        kind: 'secret',
        fields: [
          { name: 'apiKey', label: 'API key' },
          { name: 'account', label: 'Account', description: 'Your account id.' },
        ],
      },
      connected: false,
      connectedAt: null,
    });
    expect((await listed('plain')).connect).toBeNull();

    const missing = await call(admin, 'post', '/api/v1/add-ons/vault/connect', { fields: { apiKey: SECRETS.apiKey, extra: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION_FAILED');
    expect(missing.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.fields.account', 'body.fields.extra']);
    expect((await listed('vault')).connected).toBe(false);

    expect((await call(admin, 'post', '/api/v1/add-ons/plain/connect', { fields: { a: 'b' } })).body.error).toMatchObject({
      code: 'ADDON_NOT_CONNECTABLE',
      params: { reason: 'none' },
    });
    expect((await call(admin, 'post', '/api/v1/add-ons/oauthy/connect', { fields: { a: 'b' } })).body.error).toMatchObject({
      code: 'ADDON_NOT_CONNECTABLE',
      params: { reason: 'kind', kind: 'oauth2' },
    });
    expect((await call(admin, 'post', '/api/v1/add-ons/nope/connect', { fields: {} })).body.error.code).toBe('ADDON_NOT_FOUND');

    const ok = await call(admin, 'post', '/api/v1/add-ons/vault/connect', { fields: { apiKey: SECRETS.apiKey, account: SECRETS.account } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.addon).toMatchObject({ key: 'vault', connected: true, connectedAt: clock, connectionExpiresAt: null });
    expect((await listed('vault')).connected).toBe(true);

    // Only its own code sees them; another add-on sees nothing.
    expect(await peek('vault')).toEqual({ apiKey: SECRETS.apiKey, account: SECRETS.account });
    expect(await peek('plain')).toBeNull();
    expect(await peek('oauthy')).toBeNull();

    // At rest they are sealed: the meta store holds no plaintext.
    const rows = await inst.app.kernel.db.withTables<{ addon_connections: { sealed: string } }>().selectFrom('addon_connections').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(SECRETS.apiKey);

    const forgot = await call(admin, 'delete', '/api/v1/add-ons/vault/connect');
    expect(forgot.status, forgot.text).toBe(200);
    expect(forgot.body.data.addon).toMatchObject({ connected: false, connectedAt: null });
    expect(await peek('vault')).toBeNull();
    expect((await call(admin, 'post', '/api/v1/add-ons/vault/connect', { fields: { apiKey: SECRETS.apiKey, account: SECRETS.account } })).status).toBe(200);
  });

  it('starts OAuth with PKCE S256 and a state bound to the session; a wrong state and another session are refused', async () => {
    expect((await call(admin, 'post', '/api/v1/add-ons/vault/connect/oauth/start')).body.error).toMatchObject({
      code: 'ADDON_NOT_CONNECTABLE',
      params: { reason: 'kind' },
    });
    const started = await start();
    const u = new URL(started.authorizeUrl);
    expect(`${u.origin}${u.pathname}`).toBe('https://provider.example/authorize');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      audience: 'api',
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${inst.url}/add-ons/oauthy/connect/callback`,
      scope: 'read write',
      state: started.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(started.redirectUri).toBe(`${inst.url}/add-ons/oauthy/connect/callback`);
    expect(started.expiresAt).toBe(clock + 10 * 60_000);

    authorize(started.authorizeUrl, SECRETS.code);
    const wrong = await complete(SECRETS.code, `${started.state}x`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('ADDON_OAUTH_STATE_INVALID');
    // The same admin signed in elsewhere: another session, so the state does not open.
    const elsewhere = await sessionFor(inst, adminId);
    expect((await complete(SECRETS.code, started.state, elsewhere)).body.error.code).toBe('ADDON_OAUTH_STATE_INVALID');
    // Nor for another add-on's complete.
    const other = await call(admin, 'post', '/api/v1/add-ons/vault/connect/oauth/complete', { code: SECRETS.code, state: started.state });
    expect(other.body.error.code).toBe('ADDON_NOT_CONNECTABLE');
    expect(provider.requests).toEqual([]);

    const done = await complete(SECRETS.code, started.state);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.addon).toMatchObject({ key: 'oauthy', connected: true, connectedAt: clock, connectionExpiresAt: clock + 3600_000 });
    // The provider got the code, the redirect URI and the verifier matching the challenge (it checked), with HTTP Basic client auth.
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.form).toMatchObject({ grant_type: 'authorization_code', code: SECRETS.code, redirect_uri: started.redirectUri });
    expect(provider.requests[0]!.form.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(provider.requests[0]!.form.client_secret).toBeUndefined();

    // Single use: the same state again is a replay.
    const replay = await complete(SECRETS.code, started.state);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('ADDON_OAUTH_STATE_USED');
  });

  it('refuses a state older than 10 minutes by the instance clock', async () => {
    const started = await start();
    authorize(started.authorizeUrl, 'late-code');
    clock += 10 * 60_000 + 1000;
    const late = await complete('late-code', started.state);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('ADDON_OAUTH_STATE_EXPIRED');
  });

  it("answers a provider's refusal with ADDON_OAUTH_PROVIDER_ERROR and its error code, not its description; the connection stays", async () => {
    const before = provider.requests.length;
    const started = await start();
    const refused = await complete('never-issued', started.state);
    expect(refused.status, refused.text).toBe(502);
    expect(refused.body.error).toMatchObject({ code: 'ADDON_OAUTH_PROVIDER_ERROR', params: { reason: 'refused', status: 400, error: 'invalid_grant' } });
    expect(refused.text).not.toContain('no such code');
    expect(provider.requests.length).toBe(before + 1);
    // The state was spent by the failed attempt.
    expect((await complete('never-issued', started.state)).body.error.code).toBe('ADDON_OAUTH_STATE_USED');
    expect((await listed('oauthy')).connected).toBe(true);
  });

  it('gives the add-on its access token (never the refresh token) and refreshes it when it has expired', async () => {
    const first = await peek('oauthy');
    expect(first).toEqual({ accessToken: SECRETS.access1, tokenType: 'Bearer', expiresAt: expect.any(String), scope: 'read write' });
    const expiresAt = Date.parse(first.expiresAt);
    expect(provider.requests.filter((r) => r.form.grant_type === 'refresh_token')).toHaveLength(0);

    clock = expiresAt + 1000;
    const second = await peek('oauthy');
    expect(second).toEqual({ accessToken: SECRETS.access2, tokenType: 'Bearer', expiresAt: new Date(clock + 3600_000).toISOString(), scope: 'read write' });
    const refreshes = provider.requests.filter((r) => r.form.grant_type === 'refresh_token');
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.form.refresh_token).toBe(SECRETS.refresh);
    expect((await listed('oauthy')).connectionExpiresAt).toBe(clock + 3600_000);
    // Fresh now: no second refresh.
    expect((await peek('oauthy')).accessToken).toBe(SECRETS.access2);
    expect(provider.requests.filter((r) => r.form.grant_type === 'refresh_token')).toHaveLength(1);
    // Still only its own: the other add-ons see theirs or nothing.
    expect(await peek('plain')).toBeNull();
    expect((await peek('vault')).apiKey).toBe(SECRETS.apiKey);
  });

  it('a refresh the provider refuses is logged (without a token) and the call goes on with the stored token', async () => {
    provider.refuseRefresh = true;
    const stored = await peek('oauthy');
    clock = Date.parse(stored.expiresAt) + 1000;
    const stale = await peek('oauthy');
    expect(stale).toEqual({ ...stored });
    expect(logLines.some((l) => l.includes("refreshing an add-on's OAuth token failed") && l.includes('ADDON_OAUTH_PROVIDER_ERROR'))).toBe(true);
    provider.refuseRefresh = false;
    expect((await peek('oauthy')).accessToken).toBe(SECRETS.access2);
  });

  it('reaches the token endpoint under the outbound rules: an unreachable provider, an IP literal', async () => {
    const oauth = (key: string, tokenUrl: string) =>
      install(
        base(key, {
          settings: { type: 'object', properties: { clientId: { type: 'string' }, clientSecret: { type: 'string', secret: true } }, required: [] },
          connect: {
            kind: 'oauth2',
            authorizeUrl: 'https://provider.example/authorize',
            tokenUrl,
            scopes: [],
            clientIdSetting: 'clientId',
            clientSecretSetting: 'clientSecret',
          },
        }),
        { clientId: CLIENT_ID },
      );
    await oauth('gone', 'http://localhost:1/token');
    await oauth('literal', `http://127.0.0.1:${new URL(provider.tokenUrl).port}/token`);
    const attempt = async (key: string) => {
      const started = await call(admin, 'post', `/api/v1/add-ons/${key}/connect/oauth/start`);
      expect(started.status, started.text).toBe(200);
      return call(admin, 'post', `/api/v1/add-ons/${key}/connect/oauth/complete`, { code: 'c', state: started.body.data.state });
    };
    const gone = await attempt('gone');
    expect(gone.status).toBe(502);
    expect(gone.body.error).toMatchObject({ code: 'ADDON_OAUTH_PROVIDER_ERROR', params: { reason: 'unreachable' } });
    const literal = await attempt('literal');
    expect(literal.status).toBe(403);
    expect(literal.body.error).toMatchObject({ code: 'ADDON_OUTBOUND_REFUSED', params: { reason: 'ip_literal' } });
    // Without a client id there is nothing to start.
    expect((await admin.patch('/api/v1/add-ons/gone', { settings: { clientId: null } })).status).toBe(200);
    expect((await call(admin, 'post', '/api/v1/add-ons/gone/connect/oauth/start')).body.error).toMatchObject({
      code: 'ADDON_NOT_CONNECTABLE',
      params: { reason: 'client_settings', setting: 'clientId' },
    });
  });

  it('never returns a secret to staff nor writes one to the log or the audit trail', async () => {
    const audit = await call(admin, 'get', '/api/v1/audit?limit=200');
    expect(audit.status).toBe(200);
    expect(audit.text).toContain('add-ons.connect');
    expect(logLines.length).toBeGreaterThan(0);
    const log = logLines.join('\n');
    for (const [name, secret] of Object.entries(SECRETS)) {
      expect(log.includes(secret), `${name} in the log`).toBe(false);
      for (const body of seen) expect(body.includes(secret), `${name} in a response`).toBe(false);
    }
  });

  it('OAuth needs a signed-in session: an API key cannot start or complete', async () => {
    const key = await addApiKey(inst, 'admin');
    const c = inst.client();
    const started = await c.post('/api/v1/add-ons/oauthy/connect/oauth/start', undefined, { headers: key });
    expect(started.status).toBe(403);
    expect(started.body.error.code).toBe('SESSION_REQUIRED');
    const completed = await c.post('/api/v1/add-ons/oauthy/connect/oauth/complete', { code: 'x', state: 'y' }, { headers: key });
    expect(completed.body.error.code).toBe('SESSION_REQUIRED');
  });

  it('an upgrade keeps a connection of the same kind and forgets one of another kind', async () => {
    const upgrade = async (manifest: AddonManifestInput) => {
      const pkg = await packFixture(manifest, PEEK);
      expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
      const plan = (await admin.get(`/api/v1/add-ons/${manifest.key}/plan?version=${manifest.version}`)).body.data.plan;
      const res = await admin.post(`/api/v1/add-ons/${manifest.key}/upgrade`, { version: manifest.version, planHash: plan.hash });
      expect(res.status, res.text).toBe(200);
      return res.body.data.addon;
    };
    const vault = await upgrade(
      base('vault', {
        version: '1.1.0',
        connect: {
          kind: 'secret',
          fields: [
            { name: 'apiKey', label: 'API key' },
            { name: 'account', label: 'Account' },
          ],
        },
      }),
    );
    expect(vault).toMatchObject({ version: '1.1.0', connected: true });
    expect((await peek('vault')).apiKey).toBe(SECRETS.apiKey);
    const oauthy = await upgrade(
      base('oauthy', {
        version: '1.1.0',
        settings: { type: 'object', properties: { clientId: { type: 'string' }, clientSecret: { type: 'string', secret: true } }, required: [] },
        connect: { kind: 'secret', fields: [{ name: 'token', label: 'Token' }] },
      }),
    );
    expect(oauthy).toMatchObject({ version: '1.1.0', connected: false, connectedAt: null, connect: { kind: 'secret' } });
    expect(await peek('oauthy')).toBeNull();
  });

  it("an upgrade that changes an OAuth connection's token URL forgets its tokens, and its plan says so", async () => {
    const oauth = (version: string, tokenUrl: string): AddonManifestInput =>
      base('relay', {
        version,
        settings: { type: 'object', properties: { clientId: { type: 'string' }, clientSecret: { type: 'string', secret: true } }, required: [] },
        connect: {
          kind: 'oauth2',
          authorizeUrl: provider.authorizeUrl,
          tokenUrl,
          scopes: ['read'],
          clientIdSetting: 'clientId',
          clientSecretSetting: 'clientSecret',
        },
      });
    await install(oauth('1.0.0', provider.tokenUrl), { clientId: CLIENT_ID, clientSecret: SECRETS.clientSecret });
    const started = await call(admin, 'post', '/api/v1/add-ons/relay/connect/oauth/start');
    expect(started.status, started.text).toBe(200);
    authorize(started.body.data.authorizeUrl, 'code-relay');
    const done = await call(admin, 'post', '/api/v1/add-ons/relay/connect/oauth/complete', { code: 'code-relay', state: started.body.data.state });
    expect(done.status, done.text).toBe(200);
    expect(await listed('relay')).toMatchObject({ connected: true });
    const upgrade = async (manifest: AddonManifestInput) => {
      const pkg = await packFixture(manifest, PEEK);
      expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
      const plan = (await admin.get(`/api/v1/add-ons/relay/plan?version=${manifest.version}`)).body.data.plan;
      const res = await admin.post('/api/v1/add-ons/relay/upgrade', { version: manifest.version, planHash: plan.hash });
      expect(res.status, res.text).toBe(200);
      return { plan, addon: res.body.data.addon };
    };
    // The same token URL: the tokens stay.
    const same = await upgrade(oauth('1.1.0', provider.tokenUrl));
    expect(same.plan.warnings.join(' ')).not.toContain('connect it again');
    expect(same.addon).toMatchObject({ connected: true });
    // Another token URL: the refresh token is never sent there; the operator connects again.
    const moved = await upgrade(oauth('1.2.0', `${provider.tokenUrl}?tenant=2`));
    expect(moved.plan.warnings.join(' ')).toContain('connect it again');
    expect(moved.addon).toMatchObject({ connected: false, connectedAt: null });
    expect(await peek('relay')).toBeNull();
  });

  it('removing an add-on forgets its connection', async () => {
    expect((await admin.delete('/api/v1/add-ons/vault')).status).toBe(200);
    const rows = await inst.app.kernel.db
      .withTables<{ addon_connections: { addon_key: string } }>()
      .selectFrom('addon_connections')
      .select('addon_key')
      .execute();
    expect(rows).toEqual([]);
  });
});
