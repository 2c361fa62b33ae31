import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { startFakeLlm, type FakeLlm } from '../../test/helpers/fake-llm.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import { call } from '../../test/helpers/contract.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { availableDialects, dataEnv, type DataEnv } from '../data/testing.js';

const dialects = await availableDialects();

/** Marker strings in secret and personal columns: none may reach a prompt. */
const SECRET = 'SECRET-MARKER-7f3a';
const PERSONAL = 'PERSONAL-MARKER-91c2';
const PERSONAL_EMAIL = 'personal-marker-5d0e@example.com';

describe('LLM settings and the provider', () => {
  const logs: string[] = [];
  let fake: FakeLlm;
  let env: DataEnv;
  let offline: { inst: TestInstance; admin: HttpClient };

  beforeAll(async () => {
    fake = await startFakeLlm();
    env = await dataEnv('sqlite', { logLines: logs, env: { SVC_LOG_LEVEL: 'debug' } });
    offline = await bootWithAdmin({ env: { SVC_NETWORK_FEATURES: 'false' } });
  });
  afterAll(async () => {
    await env?.close();
    await offline?.inst.close();
    await fake?.close();
  });

  const put = (body: unknown, e: { inst: TestInstance; admin: HttpClient } = env) => call(e.inst, e.admin, 'PUT', '/api/v1/llm/config', body);

  it('starts off; a run is refused with LLM_DISABLED', async () => {
    const got = await env.req(env.admin, 'GET', '/api/v1/llm/config');
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ mode: 'off', provider: null, limits: { timeoutMs: 60000, maxPromptChars: 100000, maxChanges: 500, retentionDays: 30 } });
    const run = await env.req(env.admin, 'POST', '/api/v1/llm/runs', { request: 'add a product', connectionId: env.connectionId });
    expect(run.status).toBe(409);
    expect(run.body.error.code).toBe('LLM_DISABLED');
  });

  it('refuses link-local and metadata addresses, credentials in the URL and other schemes', async () => {
    for (const baseUrl of [
      'http://169.254.169.254/',
      'http://169.254.10.1:8080/v1',
      'http://user:pw@127.0.0.1:1/v1',
      'ftp://127.0.0.1/v1',
      'http://metadata.google.internal/v1',
      'http://[fe80::1]/v1',
    ]) {
      const res = await put({ mode: 'provider', provider: { baseUrl, model: 'm' } });
      expect(res.status, baseUrl).toBe(400);
      expect(res.body.error.issues[0]).toMatchObject({ path: 'body.provider.baseUrl', code: 'baseUrl-invalid' });
    }
  });

  it('refuses a public host while network features are off, and allows loopback and private addresses', async () => {
    const pub = await put({ mode: 'provider', provider: { baseUrl: 'https://8.8.8.8/v1', model: 'gpt' } }, offline);
    expect(pub.status).toBe(409);
    expect(pub.body.error.code).toBe('NETWORK_FEATURES_DISABLED');
    for (const baseUrl of [fake.baseUrl, 'http://10.1.2.3:11434/v1', 'http://192.168.1.20/v1', 'http://localhost:11434/v1']) {
      const res = await put({ mode: 'provider', provider: { baseUrl, model: 'm' } }, offline);
      expect(res.status, baseUrl).toBe(200);
    }
  });

  it('keeps the key and header values sealed, never returned', async () => {
    const res = await put({
      mode: 'provider',
      provider: { baseUrl: fake.baseUrl, model: 'fake-small', apiKey: 'sk-test-KEY-123', headers: { 'X-Org': 'org-VALUE-9' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.provider).toEqual({ baseUrl: fake.baseUrl, model: 'fake-small', apiKeySet: true, headers: ['X-Org'] });
    expect(res.text).not.toContain('sk-test-KEY-123');
    const stored = JSON.stringify(await env.inst.app.kernel.settings.get('llm'));
    expect(stored).not.toContain('sk-test-KEY-123');
    expect(stored).not.toContain('org-VALUE-9');
    // Absent keeps the key; a header given null keeps its value.
    const kept = await put({ mode: 'provider', provider: { baseUrl: fake.baseUrl, model: 'fake-small', headers: { 'X-Org': null } } });
    expect(kept.body.data.provider.apiKeySet).toBe(true);
    const audit = await env.inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'llm.config.update').execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain('sk-test-KEY-123');
    // The test call sends them.
    fake.requests.length = 0;
    const t = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(t.status, t.text).toBe(200);
    expect(t.body.data).toMatchObject({ ok: true, model: 'fake-small' });
    expect(fake.requests[0]!.headers['authorization']).toBe('Bearer sk-test-KEY-123');
    expect(fake.requests[0]!.headers['x-org']).toBe('org-VALUE-9');
  });

  it('lists the models, kept 5 minutes', async () => {
    fake.requests.length = 0;
    const a = await env.req(env.admin, 'GET', '/api/v1/llm/models');
    expect(a.status, a.text).toBe(200);
    expect(a.body.data.models).toEqual([{ id: 'fake-small' }, { id: 'fake-large' }]);
    await env.req(env.admin, 'GET', '/api/v1/llm/models');
    expect(fake.requests.filter((r) => r.path === '/v1/models')).toHaveLength(1);
  });

  it('answers LLM_PROVIDER_ERROR with the reason', async () => {
    fake.behaviour = '401';
    const auth = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(auth.status).toBe(502);
    expect(auth.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'auth', status: 401 } });
    fake.behaviour = '500';
    const down = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(down.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'unreachable', status: 500 } });
    // A new setting drops the models kept for the old one: asked again, the provider fails.
    await put({ mode: 'provider', provider: { baseUrl: fake.baseUrl, model: 'fake-large' } });
    const models = await env.req(env.admin, 'GET', '/api/v1/llm/models');
    expect(models.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'unreachable', status: 500 } });
    fake.behaviour = 'garbage';
    const garbage = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(garbage.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'bad-answer', status: 200 } });
    fake.behaviour = 'answer';
    await put({ mode: 'provider', provider: { baseUrl: fake.baseUrl, model: 'missing-model' } });
    const missing = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(missing.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'model-not-found', status: 404 } });
    await put({ mode: 'provider', provider: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } });
    const gone = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(gone.body.error).toMatchObject({ code: 'LLM_PROVIDER_ERROR', params: { reason: 'unreachable', status: null } });
  });

  it('never writes the key or a header value to the log', () => {
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).not.toContain('sk-test-KEY-123');
      expect(line).not.toContain('org-VALUE-9');
    }
  });

  it('is for llm.admin only; manual mode lists no models and cannot be tested', async () => {
    const editor = await env.user('editor-cfg@example.com', ['editor']);
    expect((await env.req(editor, 'GET', '/api/v1/llm/config')).status).toBe(403);
    expect((await env.req(editor, 'PUT', '/api/v1/llm/config', { mode: 'off' })).status).toBe(403);
    await put({ mode: 'manual' });
    expect((await env.req(env.admin, 'GET', '/api/v1/llm/models')).body.data.models).toEqual([]);
    const t = await env.req(env.admin, 'POST', '/api/v1/llm/config/test');
    expect(t.status).toBe(409);
    expect(t.body.error.code).toBe('LLM_NOT_CONFIGURED');
  });
});

describe.each(dialects)('LLM runs on %s', (dialect) => {
  let fake: FakeLlm;
  let env: DataEnv;
  let editor: HttpClient;
  let viewer: HttpClient;
  let productIds: string[];
  const hooked: Array<{ op: string; table: string; values: Record<string, unknown> }> = [];

  beforeAll(async () => {
    fake = await startFakeLlm();
    env = await dataEnv(dialect);
    editor = await env.user('editor@example.com', ['editor']);
    viewer = await env.user('viewer@example.com', ['viewer']);
    const o = await env.req(env.admin, 'PUT', `/api/v1/connections/${env.connectionId}/schema/overrides`, {
      tables: [
        {
          table: 'user',
          columns: [
            { column: 'email', personal: true },
            { column: 'first name', personal: true },
            { column: "it's", secret: true },
          ],
        },
      ],
    });
    expect(o.status, o.text).toBe(200);
    productIds = await env.seed('product', [
      { sku: 'A-1', name: 'Anvil', price: '10.00', stock: 3 },
      { sku: 'B-1', name: 'Bucket', price: '5.00', stock: 1 },
      { sku: 'C-1', name: 'Chisel', price: '7.00', stock: 9 },
    ]);
    await env.seed('user', [{ email: PERSONAL_EMAIL, 'first name': PERSONAL, "it's": SECRET }]);
    // An add-on's beforeWrite on product, registered where the add-ons plugin registers its hooks.
    env.inst.app.kernel.rowWrites.register({
      hooks: (connectionId, table) => connectionId === env.connectionId && table === 'product',
      before: async (e) => {
        hooked.push({ op: e.op, table: e.table, values: e.values });
        return e.op === 'insert' ? { ...e.values, description: 'set by the hook' } : null;
      },
      after: () => undefined,
    });
  });
  afterAll(async () => {
    await env?.close();
    await fake?.close();
  });

  const req = (client: HttpClient, method: string, path: string, body?: unknown) => env.req(client, method, path, body);
  const config = (body: unknown) => req(env.admin, 'PUT', '/api/v1/llm/config', body);
  const newRun = async (client: HttpClient = editor, extra: Record<string, unknown> = {}) => {
    const res = await req(client, 'POST', '/api/v1/llm/runs', {
      request: 'Restock the anvils and add a widget',
      connectionId: env.connectionId,
      tables: ['product', 'user'],
      ...extra,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.run as { id: string; state: string };
  };
  const respond = (id: string, text: string, client: HttpClient = editor) => req(client, 'POST', `/api/v1/llm/runs/${id}/response`, { text });
  const diffOf = async (id: string, client: HttpClient = editor) => {
    const res = await req(client, 'GET', `/api/v1/llm/runs/${id}/diff`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.diff;
  };
  const prompts: string[] = [];
  const promptOf = async (id: string) => {
    const res = await req(editor, 'GET', `/api/v1/llm/runs/${id}/prompt`);
    expect(res.status, res.text).toBe(200);
    prompts.push(res.body.data.text);
    return res.body.data as { messages: Array<{ role: string; content: string }>; text: string; chars: number };
  };
  const sku = (n: number) => `LLM-${dialect.slice(0, 2)}-${n}`;
  const goodSet = (n: number) => ({
    changes: [
      { op: 'insert', table: 'product', values: { sku: sku(n), name: `Widget ${n}`, price: '3.50' } },
      { op: 'update', table: 'product', key: { id: Number(productIds[0]) }, values: { stock: 10 + n } },
    ],
  });

  it('manual mode: the prompt holds the schema, and samples only when asked, never secret or personal values', async () => {
    expect((await config({ mode: 'manual' })).status).toBe(200);
    const plain = await newRun();
    expect(plain.state).toBe('prompted');
    const p = await promptOf(plain.id);
    expect(p.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(p.text).toContain('Table "product"');
    expect(p.text).toContain('"sku"');
    expect(p.text).toMatch(/"category_id"\) references "category"/);
    expect(p.text).not.toContain('Anvil');
    const sampled = await newRun(editor, { includeSampleRows: 5 });
    const s = await promptOf(sampled.id);
    expect(s.text).toContain('Anvil');
    for (const text of prompts) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(PERSONAL);
      expect(text).not.toContain(PERSONAL_EMAIL);
    }
  });

  it('refuses a table the caller may not read, an unknown table and connection', async () => {
    const narrowRole = await req(env.admin, 'POST', '/api/v1/roles', { name: `Asker ${dialect}` });
    const roleId = narrowRole.body.data.role.id;
    await req(env.admin, 'PUT', `/api/v1/roles/${roleId}/permissions`, {
      grants: [{ permission: 'llm.use' }, { permission: 'data.read', scope: { connectionId: env.connectionId, table: 'product' } }],
    });
    const asker = await env.user(`asker-${dialect}@example.com`, [roleId]);
    const forbidden = await req(asker, 'POST', '/api/v1/llm/runs', { request: 'x', connectionId: env.connectionId, tables: ['product', 'user'] });
    expect(forbidden.status).toBe(403);
    const unknown = await req(editor, 'POST', '/api/v1/llm/runs', { request: 'x', connectionId: env.connectionId, tables: ['nope'] });
    expect(unknown.status).toBe(404);
    const noConn = await req(editor, 'POST', '/api/v1/llm/runs', { request: 'x', connectionId: 'c_nope' });
    expect(noConn.status).toBe(404);
    // The asker reads product but may not write it: the diff says so, and apply is 403.
    const run = await newRun(asker, { tables: ['product'] });
    expect((await respond(run.id, JSON.stringify(goodSet(90)), asker)).body.data.run.state).toBe('parsed');
    const d = await diffOf(run.id, asker);
    expect(d.changes[0].valid).toBe(false);
    expect(d.changes[0].problems.join(' ')).toMatch(/may not write/);
    const applied = await req(asker, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash, skipInvalid: true });
    expect(applied.status).toBe(403);
    // A viewer holds no llm.use at all.
    expect((await req(viewer, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash })).status).toBe(403);
    expect((await req(viewer, 'POST', '/api/v1/llm/runs', { request: 'x', connectionId: env.connectionId })).status).toBe(403);
  });

  it('a pasted answer that is prose, invalid JSON, outside the run, DDL or too long is invalid with why', async () => {
    const run = await newRun();
    const prose = await respond(run.id, 'Sure! I would add a widget for you.');
    expect(prose.status).toBe(200);
    expect(prose.body.data.run).toMatchObject({ state: 'invalid', problems: [expect.stringMatching(/No JSON change set/)] });
    const broken = await respond(run.id, '```json\n{"changes": [ {"op": "insert", }\n```');
    expect(broken.body.data.run.problems[0]).toMatch(/not valid/);
    const outside = await respond(run.id, JSON.stringify({ changes: [{ op: 'insert', table: 'category', values: { name: 'x', slug: 'x' } }] }));
    expect(outside.body.data.run.problems[0]).toMatch(/not one of this run's tables/);
    const ddl = await respond(run.id, JSON.stringify({ changes: [{ op: 'sql', query: 'DROP TABLE product' }] }));
    expect(ddl.body.data.run.problems[0]).toMatch(/unknown operation "sql"/);
    const many = await respond(run.id, JSON.stringify({ changes: Array.from({ length: 501 }, () => ({ op: 'delete', table: 'product', key: { id: 1 } })) }));
    expect(many.body.data.run.problems[0]).toMatch(/at most 500/);
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${run.id}/diff`)).status).toBe(409);
    const got = await req(editor, 'GET', `/api/v1/llm/runs/${run.id}`);
    expect(got.body.data.run.state).toBe('invalid');
  });

  it('diff, apply with the hash, hooks, undo; a stale hash and invalid changes are refused', async () => {
    const run = await newRun();
    const set = {
      changes: [
        ...goodSet(1).changes,
        { op: 'update', table: 'user', key: { id: 1 }, values: { "it's": 'x' } },
        { op: 'update', table: 'product', key: { id: Number(productIds[1]) }, values: { stock: 'many' } },
      ],
    };
    expect((await respond(run.id, 'Here you go:\n```json\n' + JSON.stringify(set) + '\n```')).body.data.run.state).toBe('parsed');
    const d = await diffOf(run.id);
    expect(d.summary).toEqual({ insert: 1, update: 1, delete: 0, views: 0, pages: 0, invalid: 2 });
    expect(d.changes[1]).toMatchObject({
      op: 'update',
      table: 'product',
      key: productIds[0],
      valid: true,
      before: { name: 'Anvil', stock: 3 },
      after: { stock: 11 },
    });
    expect(d.changes[2].problems.join(' ')).toMatch(/secret column/);
    expect(d.changes[3].valid).toBe(false);
    const invalid = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('LLM_CHANGES_INVALID');
    expect(invalid.body.error.params.changes.map((c: { index: number }) => c.index)).toEqual([2, 3]);
    // Someone edits the row shown: the diff is no longer the one seen.
    await req(env.admin, 'PATCH', env.path('product', productIds[0]!), { values: { stock: 4 } });
    const stale = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash, skipInvalid: true });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('LLM_DIFF_CHANGED');
    expect(stale.body.error.params.hash).not.toBe(d.hash);
    const fresh = await diffOf(run.id);
    hooked.length = 0;
    const applied = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: fresh.hash, skipInvalid: true });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.data.applied).toMatchObject({ insert: 1, update: 1, delete: 0, skipped: 2 });
    expect(applied.body.data.run).toMatchObject({ state: 'applied', appliedAt: expect.any(Number) });
    expect(applied.body.data.run.undoExpiresAt - applied.body.data.run.appliedAt).toBeGreaterThan(23 * 3600_000);
    expect(hooked.map((h) => h.op).sort()).toEqual(['insert', 'update']);
    const inserted = await env.db.selectFrom('product').selectAll().where('sku', '=', sku(1)).executeTakeFirst();
    expect(inserted).toMatchObject({ name: 'Widget 1', description: 'set by the hook' });
    expect(Number((await env.db.selectFrom('product').select('stock').where('id', '=', Number(productIds[0])).executeTakeFirstOrThrow()).stock)).toBe(11);
    // Applied once only.
    expect((await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: fresh.hash, skipInvalid: true })).status).toBe(409);
    const audit = await env.inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'llm.run.apply').execute();
    expect(audit.length).toBe(1);
    // Undo: only the applier (or llm.admin); a wrong token is 404.
    const token = applied.body.data.undoToken as string;
    expect((await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/undo/not-the-token`)).status).toBe(404);
    const undone = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/undo/${token}`);
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.data.run.state).toBe('undone');
    expect(await env.db.selectFrom('product').selectAll().where('sku', '=', sku(1)).executeTakeFirst()).toBeUndefined();
    expect(Number((await env.db.selectFrom('product').select('stock').where('id', '=', Number(productIds[0])).executeTakeFirstOrThrow()).stock)).toBe(4);
    expect((await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/undo/${token}`)).status).toBe(404);
    expect((await env.inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'llm.run.undo').execute()).length).toBe(1);
  });

  it('undo after a row was edited by someone else: 409 CONFLICT listing the rows, nothing undone', async () => {
    const run = await newRun();
    await respond(run.id, JSON.stringify(goodSet(2)));
    const d = await diffOf(run.id);
    const applied = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash });
    expect(applied.status, applied.text).toBe(200);
    await req(env.admin, 'PATCH', env.path('product', productIds[0]!), { values: { stock: 99 } });
    const conflict = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/undo/${applied.body.data.undoToken}`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({
      code: 'CONFLICT',
      params: { reason: 'rows-changed', rows: [{ table: 'product', recordId: productIds[0], reason: 'row-changed' }] },
    });
    expect(await env.db.selectFrom('product').selectAll().where('sku', '=', sku(2)).executeTakeFirst()).toBeDefined();
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${run.id}`)).body.data.run.state).toBe('applied');
    // Another editor cannot see it; the admin (llm.admin) sees every run.
    const other = await env.user(`other-${dialect}@example.com`, ['editor']);
    expect((await req(other, 'GET', `/api/v1/llm/runs/${run.id}`)).status).toBe(404);
    expect((await req(other, 'GET', `/api/v1/llm/runs/${run.id}/prompt`)).status).toBe(404);
    expect((await req(other, 'POST', `/api/v1/llm/runs/${run.id}/undo/${applied.body.data.undoToken}`)).status).toBe(404);
    // Past its 24 hours the token is unknown.
    await env.inst.app.kernel.db
      .withTables<{ llm_runs: { id: string; undo_expires_at: number | null } }>()
      .updateTable('llm_runs')
      .set({ undo_expires_at: Date.now() - 1000 })
      .where('id', '=', run.id)
      .execute();
    expect((await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/undo/${applied.body.data.undoToken}`)).status).toBe(404);
    const list = await req(env.admin, 'GET', '/api/v1/llm/runs?limit=2');
    expect(list.body.data.runs).toHaveLength(2);
    expect(list.body.data.nextCursor).toEqual(expect.any(String));
  });

  it('create-page and create-view go through the pages plugin; undo removes them unless changed since, all or nothing', async () => {
    const listPage = await req(editor, 'POST', '/api/v1/pages', {
      title: `Products ${dialect}`,
      kind: 'list',
      connectionId: env.connectionId,
      table: 'product',
    });
    expect(listPage.status, listPage.text).toBe(201);
    const pageId = listPage.body.data.page.id as string;
    const taken = await req(editor, 'POST', `/api/v1/pages/${pageId}/views`, { name: 'Taken', query: {} });
    expect(taken.status, taken.text).toBe(201);
    const board = await req(editor, 'POST', '/api/v1/pages', { title: `Board ${dialect}`, kind: 'dashboard' });
    const stockOf = async (id: string) =>
      Number((await env.db.selectFrom('product').select('stock').where('id', '=', Number(id)).executeTakeFirstOrThrow()).stock);
    const lowStock = { filters: [{ column: 'stock', op: 'lt', value: '2' }], sort: '-stock' };
    const apply = async (n: number) => {
      const run = await newRun();
      // The prompt lists the table's pages, so a create-view can name one.
      expect((await promptOf(run.id)).text).toContain(`id "${pageId}"`);
      const set = {
        changes: [
          { op: 'update', table: 'product', key: { id: Number(productIds[2]) }, values: { stock: 100 + n } },
          { op: 'create-page', title: `Restock ${dialect} ${n}`, kind: 'list', table: 'product' },
          { op: 'create-view', pageId, name: `Low stock ${n}`, query: lowStock },
          { op: 'create-view', pageId, name: 'taken', query: {} },
          { op: 'create-view', pageId, name: `Bad ${n}`, query: { filters: [{ column: 'nope', op: 'eq', value: '1' }] } },
          { op: 'create-view', pageId: board.body.data.page.id, name: `Board ${n}`, query: {} },
          { op: 'create-view', pageId: 'p_missing', name: `Missing ${n}`, query: {} },
        ],
      };
      expect((await respond(run.id, JSON.stringify(set))).body.data.run.state).toBe('parsed');
      const d = await diffOf(run.id);
      expect(d.summary).toEqual({ insert: 0, update: 1, delete: 0, views: 1, pages: 1, invalid: 4 });
      expect(d.changes[2]).toMatchObject({ op: 'create-view', table: 'product', valid: true, after: { pageId, name: `Low stock ${n}`, query: lowStock } });
      expect(d.changes[3].problems.join(' ')).toMatch(/already has a view named/);
      expect(d.changes[4].problems.join(' ')).toMatch(/No column "nope"/);
      expect(d.changes[5].problems.join(' ')).toMatch(/Only list, detail and form pages/);
      expect(d.changes[6].problems.join(' ')).toMatch(/No page with this id/);
      // A viewer of pages (no pages.write) is told so.
      const applied = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash, skipInvalid: true });
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.data.applied).toMatchObject({ update: 1, pages: 1, views: 1, skipped: 4 });
      const made = applied.body.data.run.made;
      expect(made.pages).toEqual([{ pageId: expect.any(String), slug: expect.any(String), title: `Restock ${dialect} ${n}` }]);
      expect(made.views).toEqual([{ pageId, viewId: expect.any(String), name: `Low stock ${n}` }]);
      const views = await req(editor, 'GET', `/api/v1/pages/${pageId}/views`);
      expect(views.body.data.views.find((v: { name: string }) => v.name === `Low stock ${n}`)).toMatchObject({ query: lowStock, isDefault: false });
      expect(await stockOf(productIds[2]!)).toBe(100 + n);
      return { run: applied.body.data.run as { id: string; made: typeof made }, token: applied.body.data.undoToken as string };
    };

    // The token is kept sealed: the applier (and llm.admin) read it back after a reload; no one else.
    const first = await apply(1);
    const got = await req(editor, 'GET', `/api/v1/llm/runs/${first.run.id}`);
    expect(got.body.data.run.undoToken).toBe(first.token);
    expect((await req(env.admin, 'GET', `/api/v1/llm/runs/${first.run.id}`)).body.data.run.undoToken).toBe(first.token);
    const listed = await req(editor, 'GET', '/api/v1/llm/runs?limit=5');
    expect(listed.body.data.runs.find((r: { id: string }) => r.id === first.run.id).undoToken).toBe(first.token);
    const stored = await env.inst.app.kernel.db
      .withTables<{ llm_runs: { id: string; undo_token: string | null } }>()
      .selectFrom('llm_runs')
      .select('undo_token')
      .where('id', '=', first.run.id)
      .executeTakeFirstOrThrow();
    expect(stored.undo_token).not.toContain(first.token);

    // The page made is renamed by someone: undo is 409 listing it, and nothing is undone (the row neither).
    const madePage = first.run.made.pages[0]!.pageId;
    await new Promise((r) => setTimeout(r, 5));
    expect((await req(env.admin, 'PATCH', `/api/v1/pages/${madePage}`, { title: 'Renamed by hand' })).status).toBe(200);
    const conflict = await req(editor, 'POST', `/api/v1/llm/runs/${first.run.id}/undo/${first.token}`);
    expect(conflict.status, conflict.text).toBe(409);
    expect(conflict.body.error).toMatchObject({
      code: 'CONFLICT',
      params: { reason: 'rows-changed', rows: [], pages: [{ pageId: madePage, reason: 'page-changed' }], views: [] },
    });
    expect(await stockOf(productIds[2]!)).toBe(101);
    expect((await req(editor, 'GET', `/api/v1/pages/${first.run.made.views[0]!.pageId}/views`)).body.data.views.map((v: { name: string }) => v.name)).toContain(
      'Low stock 1',
    );
    // A row changed since and a view changed since are listed together.
    await req(env.admin, 'DELETE', `/api/v1/pages/${madePage}`);
    await req(env.admin, 'PATCH', env.path('product', productIds[2]!), { values: { stock: 7 } });
    await new Promise((r) => setTimeout(r, 5));
    await req(editor, 'PATCH', `/api/v1/pages/${pageId}/views/${first.run.made.views[0]!.viewId}`, { name: 'Low stock (mine)' });
    const both = await req(editor, 'POST', `/api/v1/llm/runs/${first.run.id}/undo/${first.token}`);
    expect(both.status).toBe(409);
    expect(both.body.error.params.rows).toEqual([{ table: 'product', recordId: productIds[2], reason: 'row-changed' }]);
    expect(both.body.error.params.views).toEqual([{ pageId, viewId: first.run.made.views[0]!.viewId, name: 'Low stock 1', reason: 'view-changed' }]);
    expect(both.body.error.params.pages).toEqual([]);
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${first.run.id}`)).body.data.run.state).toBe('applied');

    // Unchanged: the row goes back, the view and the page go.
    const second = await apply(2);
    const token = (await req(editor, 'GET', `/api/v1/llm/runs/${second.run.id}`)).body.data.run.undoToken as string;
    const undone = await req(editor, 'POST', `/api/v1/llm/runs/${second.run.id}/undo/${token}`);
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.data.run.state).toBe('undone');
    expect(await stockOf(productIds[2]!)).toBe(7);
    expect((await req(editor, 'GET', `/api/v1/pages/${second.run.made.pages[0]!.pageId}`)).status).toBe(404);
    expect((await req(editor, 'GET', `/api/v1/pages/${pageId}/views`)).body.data.views.map((v: { name: string }) => v.name)).not.toContain('Low stock 2');
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${second.run.id}`)).body.data.run.undoToken).toBeUndefined();
    const audit = await env.inst.app.kernel.db
      .selectFrom('audit_log')
      .select('diff')
      .where('action', '=', 'llm.run.undo')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(String(audit.diff))).toMatchObject({ reverted: 1, removed: { pages: 1, views: 1 } });
  });

  it('runs left unapplied for 7 days are discarded by the cleanup job; a discarded run is not answered, executed or applied', async () => {
    const run = await newRun();
    await respond(run.id, JSON.stringify(goodSet(7)));
    const d = await diffOf(run.id);
    const fresh = await newRun();
    const kernel = env.inst.app.kernel;
    await kernel.db
      .withTables<{ llm_runs: { id: string; updated_at: number } }>()
      .updateTable('llm_runs')
      .set({ updated_at: Date.now() - 8 * 24 * 3600_000 })
      .where('id', '=', run.id)
      .execute();
    const job = await kernel.jobs.enqueue('llm.cleanup', null, { maxAttempts: 1 });
    const done = await kernel.jobs.waitFor(job.id, 30_000);
    expect(done.state).toBe('succeeded');
    expect((done.result as { discarded: number }).discarded).toBeGreaterThanOrEqual(1);
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${run.id}`)).body.data.run.state).toBe('discarded');
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${fresh.id}`)).body.data.run.state).toBe('prompted');
    for (const res of [
      await respond(run.id, JSON.stringify(goodSet(8))),
      await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash }),
      await req(editor, 'GET', `/api/v1/llm/runs/${run.id}/diff`),
    ]) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'wrong-state', state: 'discarded' } });
    }
  });

  it('runs older than the retention are deleted by the cleanup job', async () => {
    const run = await newRun();
    const kernel = env.inst.app.kernel;
    await kernel.db
      .withTables<{ llm_runs: { id: string; created_at: number } }>()
      .updateTable('llm_runs')
      .set({ created_at: Date.now() - 31 * 24 * 3600_000 })
      .where('id', '=', run.id)
      .execute();
    const job = await kernel.jobs.enqueue('llm.cleanup', null, { maxAttempts: 1 });
    const done = await kernel.jobs.waitFor(job.id, 30_000);
    expect(done.state).toBe('succeeded');
    expect((done.result as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);
    expect((await req(editor, 'GET', `/api/v1/llm/runs/${run.id}`)).status).toBe(404);
  });

  it('provider mode: execute runs the job; fenced, bare, prose, 500 and a slow provider', async () => {
    const manualExec = await req(editor, 'POST', `/api/v1/llm/runs/${(await newRun()).id}/execute`);
    expect(manualExec.status).toBe(409);
    expect(manualExec.body.error.code).toBe('LLM_NOT_CONFIGURED');
    expect((await config({ mode: 'provider', provider: { baseUrl: fake.baseUrl, model: 'fake-small' }, limits: { timeoutMs: 1000 } })).status).toBe(200);
    const execute = async (behaviour: FakeLlm['behaviour']) => {
      fake.behaviour = behaviour;
      const run = await newRun(editor, { includeSampleRows: 3 });
      const res = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/execute`);
      expect(res.status, res.text).toBe(202);
      expect(res.body.data.run.state).toBe('running');
      await env.inst.app.kernel.jobs.waitFor(res.body.data.job.id, 30_000);
      return (await req(editor, 'GET', `/api/v1/llm/runs/${run.id}`)).body.data.run;
    };
    fake.answer = goodSet(3);
    expect((await execute('answer')).state).toBe('parsed');
    expect((await execute('fenced')).state).toBe('parsed');
    expect((await execute('prose')).state).toBe('invalid');
    const failed = await execute('500');
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'LLM_PROVIDER_ERROR' } });
    fake.slowMs = 5000;
    const slow = await execute('slow');
    expect(slow).toMatchObject({ state: 'failed', error: { code: 'LLM_PROVIDER_ERROR' } });
    fake.behaviour = 'answer';
    // What left the instance: never a secret or personal value.
    const sent = JSON.stringify(fake.requests.map((r) => r.body));
    expect(sent).toContain('Anvil');
    for (const marker of [SECRET, PERSONAL, PERSONAL_EMAIL]) expect(sent).not.toContain(marker);
    // Execute again on a parsed run is allowed, on a running one not.
    const run = await newRun();
    const first = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/execute`);
    await env.inst.app.kernel.jobs.waitFor(first.body.data.job.id, 30_000);
    const d = await diffOf(run.id);
    const applied = await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/apply`, { diffHash: d.hash });
    expect(applied.status, applied.text).toBe(200);
    expect((await req(editor, 'POST', `/api/v1/llm/runs/${run.id}/execute`)).status).toBe(409);
    expect((await respond(run.id, '{"changes": []}')).status).toBe(409);
    await config({ mode: 'manual' });
  });
});
