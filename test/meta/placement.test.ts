import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openMetaStore } from '../../kernel/meta/store.js';
import { expectContract } from '../helpers/contract.js';
import { MYSQL_ADMIN_URL, PG_ADMIN_URL, createTempDatabase, databaseAvailable, type ServerDialect } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { recordingLogger } from './support.js';

const available: Record<ServerDialect, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const API = '/api/v1';
const admin = { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' };

describe('the placement a store reports never carries credentials', () => {
  // Pools connect lazily, so these stores are opened and closed without a server.
  it.each([
    ['postgres://alice:s3cret-pw@db.internal:5433/meta?sslmode=require', 'postgres', 'postgres://db.internal:5433/meta'],
    ['postgresql://alice:s3cret-pw@db.internal/meta', 'postgres', 'postgresql://db.internal/meta'],
    ['postgres://alice:p%40ss%3Aw%2Frd@db.internal/meta', 'postgres', 'postgres://db.internal/meta'],
    ['postgres://db.internal/meta?user=alice&password=s3cret-pw', 'postgres', 'postgres://db.internal/meta'],
    ['mysql://alice:s3cret-pw@10.0.0.5:3306/meta', 'mysql', 'mysql://10.0.0.5:3306/meta'],
    ['mariadb://alice:s3cret-pw@db.internal/meta', 'mysql', 'mysql://db.internal/meta'],
    ['mysql://alice@db.internal/meta', 'mysql', 'mysql://db.internal/meta'],
  ] as const)('%s → %s at %s', async (url, dialect, location) => {
    const store = openMetaStore({ url, dataDir: '/nonexistent-never-used', log: recordingLogger() });
    try {
      expect(store.placement).toEqual({ dialect, location });
      const shown = JSON.stringify(store.placement);
      for (const secret of ['alice', 's3cret', 'p%40ss', 'p@ss', 'password=']) expect(shown).not.toContain(secret);
    } finally {
      await store.close();
    }
  });
});

interface CredentialedDatabase {
  url: string;
  user: string;
  password: string;
  database: string;
  drop(): Promise<void>;
}

/**
 * A temp database reached as its own user with a password that needs URL encoding, so both
 * the raw and the encoded forms can be looked for in what the API answers.
 */
async function credentialedDatabase(dialect: ServerDialect): Promise<CredentialedDatabase> {
  const temp = await createTempDatabase(dialect);
  const user = `u_${randomBytes(5).toString('hex')}`;
  const password = `Pw@${randomBytes(6).toString('hex')}:/x`;
  const u = new URL(temp.url);
  u.username = user;
  u.password = password;
  const url = u.toString();
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      await c.query(`create role "${user}" login password '${password}'`);
      await c.query(`alter database "${temp.name}" owner to "${user}"`);
    } finally {
      await c.end();
    }
    return {
      url,
      user,
      password,
      database: temp.name,
      async drop() {
        await temp.drop();
        const d = new pg.Client({ connectionString: PG_ADMIN_URL });
        await d.connect();
        await d.query(`drop role if exists "${user}"`).finally(() => d.end());
      },
    };
  }
  const c = await createConnection({ uri: MYSQL_ADMIN_URL });
  try {
    await c.query(`create user '${user}'@'%' identified by '${password}'`);
    await c.query(`grant all privileges on \`${temp.name}\`.* to '${user}'@'%'`);
  } finally {
    await c.end();
  }
  return {
    url,
    user,
    password,
    database: temp.name,
    async drop() {
      await temp.drop();
      const d = await createConnection({ uri: MYSQL_ADMIN_URL });
      await d.query(`drop user if exists '${user}'@'%'`).finally(() => d.end());
    },
  };
}

describe.each(['postgres', 'mysql'] as const)('GET /meta/placement on a %s store reached with a password', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} placement`, () => {
    let inst: TestInstance | null = null;
    let db: CredentialedDatabase | null = null;
    afterEach(async () => {
      await inst?.close();
      await db?.drop();
      [inst, db] = [null, null];
    });

    it('names the dialect and the server and database, never the user name or password', async () => {
      db = await credentialedDatabase(dialect);
      inst = await startInstance({ metaUrl: db.url });
      const client = inst.client();

      const anonymous = await client.get(`${API}/meta/placement`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe('AUTH_REQUIRED');
      expectContract(inst, 'GET', `${API}/meta/placement`, anonymous);

      const created = await client.post(`${API}/setup/super-admin`, admin);
      expect(created.status, created.text).toBe(201);

      const res = await client.get(`${API}/meta/placement`);
      expect(res.status, res.text).toBe(200);
      expectContract(inst, 'GET', `${API}/meta/placement`, res);
      const port = new URL(db.url).port;
      expect(res.body).toEqual({
        data: { dialect, location: `${dialect}://127.0.0.1:${port}/${db.database}`, embedded: false, fromEnv: true, previous: null, relocation: null },
      });

      const leaks = [db.user, db.password, encodeURIComponent(db.password), new URL(db.url).password];
      for (const path of ['/meta/placement', '/system/info', '/readyz']) {
        const text = (await client.get(`${API}${path}`)).text;
        for (const secret of leaks) expect(text, path).not.toContain(secret);
      }
    });
  });
});

describe('GET /meta/placement on the embedded store', () => {
  let inst: TestInstance | null = null;
  afterEach(async () => {
    await inst?.close();
    inst = null;
  });

  it('answers sqlite, the file in the data dir, embedded', async () => {
    inst = await startInstance();
    const client = inst.client();
    expect((await client.post(`${API}/setup/super-admin`, admin)).status).toBe(201);
    const res = await client.get(`${API}/meta/placement`);
    expect(res.status).toBe(200);
    expectContract(inst, 'GET', `${API}/meta/placement`, res);
    expect(res.body).toEqual({
      data: { dialect: 'sqlite', location: `${inst.dataDir}/meta.sqlite`, embedded: true, fromEnv: false, previous: null, relocation: null },
    });
  });
});
