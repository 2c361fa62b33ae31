/** The public list's set-up, shared by bench/public-list.ts and bench/builds.ts. */
import { readFileSync } from 'node:fs';
import { runScript } from '../../test/fixtures/schema/load.js';
import { HttpClient } from '../../test/helpers/client.js';
import { ROOT } from '../../test/helpers/identity.js';
import type { LoadRequest } from './harness.js';

export const PUBLIC_PATH = '/api/v1/public/records/items';
const ORIGIN = 'https://shop.example';
const KEYS = 8;
/** Public routes are served only with allowed origins; every request names its address (X-Forwarded-For). */
export const PUBLIC_ENV = { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_TRUST_PROXY: 'true' };

/** The public API tests' products (250 rows, every fifth unpublished) into the database at `url`. */
export async function loadPublicFixture(url: string): Promise<void> {
  await runScript('postgres', url, readFileSync(new URL('../../plugins/public-api/fixtures/postgres.sql', import.meta.url), 'utf8'));
}

/** The admin side of ours, over its own HTTP API: connection, switch, endpoint, server keys (their secrets). */
export async function configurePublic(url: string, sourceUrl: string): Promise<string[]> {
  const admin = new HttpClient(url);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await admin.request(method, `/api/v1${path}`, { body });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  await ok('POST', '/setup/super-admin', ROOT);
  const connection = (await ok('POST', '/connections', { name: 'Bench', dialect: 'postgres', url: sourceUrl })).data.connection.id as string;
  await ok('POST', `/connections/${connection}/introspect`, {});
  await ok('PUT', '/public-api', { enabled: true });
  await ok('POST', '/public-scopes', {
    ref: 'items',
    connectionId: connection,
    table: 'products',
    columns: ['id', 'name', 'sku', 'price', 'published'],
    filters: [{ column: 'published', op: 'eq', value: true }],
    rateLimit: 100_000,
  });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++)
    keys.push(
      (await ok('POST', '/public-keys', { name: `bench ${i}`, kind: 'server', expires: 'never', grants: [{ ref: 'items', methods: ['GET'] }] })).data.secret,
    );
  return keys;
}

/** A new address per request and the keys in turn, counted from the start of each load. */
export function publicRequest(keys: string[]): LoadRequest {
  let n = 0;
  return {
    path: PUBLIC_PATH,
    setupRequest: (req) => {
      n++;
      const headers = {
        ...req.headers,
        authorization: `Bearer ${keys[n % keys.length]}`,
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      };
      return { ...req, headers };
    },
  };
}
