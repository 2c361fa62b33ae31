import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleServer } from '../cli/bundle.js';
import { skeleton } from '../cli/init.js';
import type { AddonContext, AddonDefinition, BeforeWriteEvent, Json } from '../define.js';
import { ActionRefused, createTestContext, HostError } from './index.js';

/** The starter's server.ts as pack bundles it, loaded as a module: the sample add-on under test. */
let starter: { manifest: unknown; addon: Required<AddonDefinition> };
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-addon-testing-'));
  const files = await skeleton('notes');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const { code } = await bundleServer(root, 'server.ts');
  const mod = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as { default: Required<AddonDefinition> };
  starter = { manifest: JSON.parse(files['addon.json']!), addon: mod.default };
});
afterAll(() => rm(root, { recursive: true, force: true }));

const call = async (ctx: AddonContext, name: string, input: Json = null) => starter.addon.actions[name]!(ctx, input);

describe('createTestContext: the starter add-on tested without an instance', () => {
  it('runs its actions over the in-memory tables, with defaults, keys and captured logs', async () => {
    const now = new Date('2026-03-01T10:00:00Z');
    const ctx = createTestContext({ manifest: starter.manifest, now: () => now });
    const a = await call(ctx, 'add', { title: '  First ' });
    expect(a).toEqual({ id: 1, title: 'First', body: null, created_at: '2026-03-01T10:00:00' });
    await call(ctx, 'add', { title: 'Second', body: 'more' });
    expect(((await call(ctx, 'recent')) as Array<{ title: string }>).map((r) => r.title)).toEqual(['Second', 'First']);
    expect(await call(ctx, 'count')).toEqual({ notes: 2 });
    expect(ctx.logs).toEqual([
      { level: 'info', message: 'note added', fields: { id: 1 } },
      { level: 'info', message: 'note added', fields: { id: 2 } },
    ]);
  });

  it('ctx.refuse throws what the caller gets: status, code, message, params', async () => {
    const ctx = createTestContext({ manifest: starter.manifest });
    const refused = await call(ctx, 'add', { title: '   ' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ActionRefused);
    expect(refused).toMatchObject({ status: 400, code: 'NOTE_TITLE_MISSING', message: 'A note needs a title.' });
    expect(ctx.store.rows('notes')).toEqual([]);
    expect(() => ctx.refuse(500, 'X_Y', 'no')).toThrow(TypeError);
    expect(() => ctx.refuse(400, 'ADDON_X', 'no')).toThrow(TypeError);
  });

  it('runs a beforeWrite hook', async () => {
    const ctx = createTestContext({ manifest: starter.manifest });
    const hook = starter.addon.hooks['notes.beforeWrite'] as (c: AddonContext, e: BeforeWriteEvent) => unknown;
    expect(await hook(ctx, { table: 'notes', op: 'insert', values: { title: ' x ' }, previous: null })).toEqual({ values: { title: 'x' } });
    expect(await hook(ctx, { table: 'notes', op: 'insert', values: { title: '' }, previous: null })).toEqual({ refuse: 'A note needs a title.' });
  });
});

describe('createTestContext: the host API contract', () => {
  const manifest = {
    key: 'shop',
    name: 'Shop',
    version: '1.0.0',
    engine: '*',
    capabilities: ['db', 'fetch'],
    outbound: ['api.example.com', '*.cdn.example.net'],
    tables: [
      {
        name: 'items',
        columns: [
          { name: 'sku', type: 'string', nullable: false },
          { name: 'qty', type: 'integer', nullable: false, default: 0 },
          { name: 'note', type: 'text' },
        ],
        primaryKey: ['sku'],
      },
    ],
  };
  const rows = [
    { sku: 'a', qty: 5, note: 'Blue mug' },
    { sku: 'b', qty: 0, note: null },
    { sku: 'c', qty: 12, note: 'blue plate' },
    { sku: 'd', qty: 3, note: 'red cup' },
  ];

  it('filters with the data API operators, sorts (NULL last, key breaks ties) and pages with cursors', async () => {
    const ctx = createTestContext({ manifest, rows: { items: rows } });
    const skus = async (where: object, sort?: string[]) =>
      (await ctx.db.list('items', { where: where as never, ...(sort ? { sort } : {}) })).rows.map((r) => r['sku']);
    expect(await skus({ qty: 5 })).toEqual(['a']);
    expect(await skus({ qty: { gte: 3, lt: 12 } })).toEqual(['a', 'd']);
    expect(await skus({ qty: { ne: 0 } })).toEqual(['a', 'c', 'd']);
    expect(await skus({ note: { ne: 'red cup' } })).toEqual(['a', 'b', 'c']); // ne also matches NULL
    expect(await skus({ sku: { in: ['b', 'd'] } })).toEqual(['b', 'd']);
    expect(await skus({ note: { like: 'blue%' } })).toEqual(['a', 'c']); // case-insensitive
    expect(await skus({ note: { null: true } })).toEqual(['b']);
    expect(await skus({ note: null })).toEqual(['b']);
    expect(await skus({}, ['note'])).toEqual(['a', 'c', 'd', 'b']);
    expect(await skus({}, ['-qty'])).toEqual(['c', 'a', 'd', 'b']);
    await expect(ctx.db.list('items', { where: { qty: { between: 1 } } as never })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    const first = await ctx.db.list('items', { sort: ['-qty'], limit: 3 });
    expect(first.rows.map((r) => r['sku'])).toEqual(['c', 'a', 'd']);
    const second = await ctx.db.list('items', { sort: ['-qty'], limit: 3, cursor: first.next! });
    expect(second).toEqual({ rows: [rows[1]], next: null });
    await expect(ctx.db.list('items', { sort: ['qty'], cursor: first.next! })).rejects.toBeInstanceOf(HostError);
  });

  it('writes by key, with defaults and not-null; refuses other tables and undeclared capabilities', async () => {
    const ctx = createTestContext({ manifest });
    expect(await ctx.db.insert('items', { sku: 'x' })).toEqual({ sku: 'x', qty: 0, note: null });
    await expect(ctx.db.insert('items', { sku: 'x' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(ctx.db.insert('items', { qty: 1 })).rejects.toMatchObject({ code: 'DATA_REFUSED' });
    expect(await ctx.db.update('items', 'x', { qty: 2 })).toMatchObject({ qty: 2 });
    expect(await ctx.db.get('items', { sku: 'x' })).toMatchObject({ qty: 2 });
    expect(await ctx.db.delete('items', 'x')).toBe(true);
    expect(await ctx.db.delete('items', 'x')).toBe(false);
    await expect(ctx.db.list('users')).rejects.toMatchObject({ code: 'ADDON_HOST_DENIED' });
    await expect(ctx.kv.get('a')).rejects.toMatchObject({ code: 'ADDON_HOST_DENIED' });
  });

  it('fetch reaches outbound hosts only, through the test handler, and records each call', async () => {
    const ctx = createTestContext({
      manifest,
      fetch: (url) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) }),
    });
    expect(await ctx.fetch('https://api.example.com/v1/rates')).toMatchObject({ status: 200, body: '{"url":"https://api.example.com/v1/rates"}' });
    expect(await ctx.fetch('https://img.cdn.example.net/a.png')).toMatchObject({ status: 200 });
    const refused = await ctx.fetch('https://evil.example.org/').catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'ADDON_OUTBOUND_REFUSED',
      message: "outbound fetch to evil.example.org refused: host not in the add-on's allow-list (outbound in addon.json)",
      params: { host: 'evil.example.org', reason: 'host_not_listed' },
    });
    expect(ctx.fetches.map((f) => f.url)).toEqual(['https://api.example.com/v1/rates', 'https://img.cdn.example.net/a.png']);
  });
});
