import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, uploadPackage } from '../testing.js';

/**
 * Review of issue 26, point 1: ctx.db.list's 1 MiB cap is reached without the page coming into
 * the API process first. Two tiny rows, then 298 rows of about 1 MiB: a page of all of them
 * used to be read whole (pages were sized by the rows seen so far) before it was refused.
 */

const manifest: AddonManifestInput = {
  key: 'hoard',
  name: 'Hoard',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['db'],
  limits: { memoryMb: 64, cpuMs: 2000 },
  tables: [
    {
      name: 'blobs',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'body', type: 'text', nullable: false },
      ],
    },
  ],
  actions: ['tiny', 'list'],
};

const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  actions: {
    tiny: async (ctx) => { await ctx.db.insert('blobs', { body: 'a' }); await ctx.db.insert('blobs', { body: 'b' }); return 2; },
    list: async (ctx, input) => {
      try { return (await ctx.db.list('blobs', { limit: input.limit })).rows.length; } catch (e) { return e.code; }
    },
  },
});
`;

const BIG = 1_000_000;
const BIG_ROWS = 298;
const available = { postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql'), sqlite: true };

/** Rows written straight into the source, as any other writer of the table could. */
async function fillBig(dialect: 'postgres' | 'mysql' | 'sqlite', source: SourceFixture): Promise<void> {
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: source.url });
    await c.connect();
    try {
      await c.query(`insert into hoard__blobs (body) select repeat('x', ${BIG}) from generate_series(1, ${BIG_ROWS})`);
    } finally {
      await c.end();
    }
  } else if (dialect === 'mysql') {
    const c = await mysql.createConnection(source.url);
    try {
      for (let i = 0; i < BIG_ROWS; i++) await c.query(`insert into hoard__blobs (body) values (repeat('x', ${BIG}))`);
    } finally {
      await c.end();
    }
  } else {
    const db = new Database(source.database);
    try {
      const insert = db.prepare('insert into hoard__blobs (body) values (?)');
      const body = 'x'.repeat(BIG);
      db.transaction(() => {
        for (let i = 0; i < BIG_ROWS; i++) insert.run(body);
      })();
    } finally {
      db.close();
    }
  }
}

for (const dialect of ['postgres', 'mysql', 'sqlite'] as const)
  describe.runIf(available[dialect])(`ctx.db.list of a page over 1 MiB on ${dialect}`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let source: SourceFixture;
    const action = (name: string, input: unknown) => admin.post(`/api/v1/public/apps/hoard/actions/${name}`, { input });

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin());
      source = await sourceFixture(dialect);
      const connectionId = (await admin.post('/api/v1/connections', { name: 'Src', dialect, url: source.url })).body.data.connection.id as string;
      const pkg = await packFixture(manifest, SERVER);
      expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
      const plan = (await admin.get(`/api/v1/add-ons/hoard/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
      const res = await admin.post('/api/v1/add-ons', { key: 'hoard', version: '1.0.0', connectionId, planHash: plan.hash });
      expect(res.status, res.text).toBe(201);
      expect((await action('tiny', null)).body.data.result).toBe(2);
      await fillBig(dialect, source);
    }, 180_000);

    afterAll(async () => {
      await inst?.close();
      await source?.cleanup();
    });

    it('is refused with PAYLOAD_TOO_LARGE while the API process reads far less than the page', async () => {
      // Small pages still answer.
      expect((await action('list', { limit: 2 })).body.data.result).toBe(2);
      let peak = 0;
      const base = process.memoryUsage().heapUsed;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - base)), 2);
      try {
        const res = await action('list', { limit: 300 });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.result).toBe('PAYLOAD_TOO_LARGE');
      } finally {
        clearInterval(sampler);
      }
      console.log(`${dialect}: heap grew by at most ${(peak / (1024 * 1024)).toFixed(0)} MiB during the refused list`);
      // The page is 298 MiB; what was read of it must be a small part of that.
      expect(peak).toBeLessThan(100 * 1024 * 1024);
    }, 120_000);
  });
