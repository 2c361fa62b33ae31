import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../test/helpers/instance.js';
import { pagesRef, type PagesProvides } from './provides.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function storeFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let pages: PagesProvides;
  // A plugin reaches another's provides only by requiring it, as the schema plugin does.
  const probe = definePlugin({
    name: 'pages-probe',
    version: '1.0.0',
    requires: ['pages'],
    setup: (kernel) => void (pages = kernel.plugin(pagesRef)),
  });
  beforeAll(async () => {
    inst = await startInstance({ meta, plugins: [probe] });
  });
  afterAll(async () => inst?.close());

  it('creates a page, finds it by id and by generated key, and appends positions', async () => {
    const a = await pages.create({
      slug: 'orders',
      title: 'Orders',
      kind: 'list',
      connectionId: 'c1',
      table: 'orders',
      config: { columns: ['id'] },
      generatedKey: 'schema:c1:list:orders',
    });
    expect(a).toMatchObject({
      slug: 'orders',
      kind: 'list',
      connectionId: 'c1',
      table: 'orders',
      config: { columns: ['id'] },
      generatedKey: 'schema:c1:list:orders',
    });
    const b = await pages.create({ slug: 'home', title: 'Home', kind: 'dashboard' });
    expect(b).toMatchObject({ connectionId: null, table: null, config: {}, generatedKey: null });
    expect(b.position).toBe(a.position + 1);
    expect(await pages.find(a.id)).toEqual(a);
    expect(await pages.findByGeneratedKey('schema:c1:list:orders')).toEqual(a);
    expect(await pages.find('nope')).toBeNull();
    expect(await pages.findByGeneratedKey('nope')).toBeNull();
  });

  it('refuses a taken slug or generated key with a 409 naming which, and allows many hand-made pages', async () => {
    await pages.create({ slug: 'hand-1', title: 'One', kind: 'custom' });
    await pages.create({ slug: 'hand-2', title: 'Two', kind: 'custom' });
    const conflict = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      return (err as AppError).params?.reason;
    };
    expect(await conflict(pages.create({ slug: 'hand-1', title: 'Again', kind: 'custom' }))).toBe('slug-taken');
    expect(await conflict(pages.create({ slug: 'other', title: 'Again', kind: 'list', generatedKey: 'schema:c1:list:orders' }))).toBe('generated-key-taken');
  });

  it('finds a free slug', async () => {
    expect(await pages.freeSlug('fresh')).toBe('fresh');
    await pages.create({ slug: 'taken', title: 'T', kind: 'custom' });
    await pages.create({ slug: 'taken-2', title: 'T', kind: 'custom' });
    expect(await pages.freeSlug('taken')).toBe('taken-3');
    // LIKE wildcards in a base are literal.
    await pages.create({ slug: 'a_b', title: 'T', kind: 'custom' });
    expect(await pages.freeSlug('a%')).toBe('a%');
  });
}

describe('pages store on SQLite', () => storeFlows('sqlite'));
describe.runIf(pg)('pages store on PostgreSQL', () => storeFlows('postgres'));
describe.runIf(mysql)('pages store on MariaDB', () => storeFlows('mysql'));
