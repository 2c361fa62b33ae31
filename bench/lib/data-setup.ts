/** The signed-in list's set-up, shared by bench/data-list.ts and bench/builds.ts. */
import pg from 'pg';
import { HttpClient } from '../../test/helpers/client.js';
import { ROOT } from '../../test/helpers/identity.js';

export const TABLE = 'products';
export const QUERY = '?limit=20&sort=-id';

/** A `products` table of `rows` rows (every fifth unpublished), analysed. */
export async function fillProducts(url: string, rows: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `create table ${TABLE} (id serial primary key, name text not null, sku text not null, price numeric(10,2) not null, published boolean not null)`,
    );
    await client.query(
      `insert into ${TABLE} (name, sku, price, published) select 'Product ' || g, 'SKU-' || lpad(g::text, 7, '0'), (g % 100000) / 100.0, g % 5 <> 0 from generate_series(1, $1) g`,
      [rows],
    );
    await client.query(`analyze ${TABLE}`);
  } finally {
    await client.end();
  }
}

/** Over ours' own API: the super admin, the connection, an adm_sk_ key (role admin) and a signed-in session. */
export async function configureData(url: string, sourceUrl: string): Promise<{ connection: string; key: string; cookie: string }> {
  const admin = new HttpClient(url);
  const ok = async (client: HttpClient, method: string, path: string, body?: unknown) => {
    const res = await client.request(method, `/api/v1${path}`, { body });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  await ok(admin, 'POST', '/setup/super-admin', ROOT);
  const connection = (await ok(admin, 'POST', '/connections', { name: 'Bench', dialect: 'postgres', url: sourceUrl })).data.connection.id as string;
  await ok(admin, 'POST', `/connections/${connection}/introspect`, {});
  const key = (await ok(admin, 'POST', '/api-keys', { name: 'bench', roleId: 'admin' })).data.secret as string;
  const browser = new HttpClient(url);
  await ok(browser, 'POST', '/auth/login', { email: ROOT.email, password: ROOT.password });
  const session = browser.cookie('svc_session');
  if (!session) throw new Error('POST /auth/login set no svc_session cookie');
  return { connection, key, cookie: `svc_session=${session}` };
}
