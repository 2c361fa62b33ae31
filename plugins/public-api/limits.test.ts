import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { publicFixture, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');

function expectLimited(res: HttpResponse<any>, limit: string): void {
  expect(res.status, res.text).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'PUBLIC_RATE_LIMITED', params: { limit } });
  const retry = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${res.headers.get('retry-after')}`).toBe(true);
  expect(res.body.error.params.retryAfter).toBe(retry);
}

function limits(dialect: Dialect) {
  let f: PublicFixture;
  let browser: string;
  let server: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    await f.endpoint({ ref: 'tight', table: 'products', rateLimit: 5 });
    await f.endpoint({ ref: 'wide', table: 'products', rateLimit: 100_000 });
    await f.endpoint({ ref: 'mine', table: 'products', rateLimit: 100_000, identity: ['sku'] });
    await f.endpoint({ ref: 'rows', table: 'products', rateLimit: 10 });
    browser = (
      await f.key('browser', [
        { ref: 'tight', methods: ['GET'] },
        { ref: 'wide', methods: ['GET', 'PATCH'] },
        { ref: 'mine', methods: ['GET'] },
      ])
    ).secret;
    server = (
      await f.key('server', [
        { ref: 'tight', methods: ['GET'] },
        { ref: 'rows', methods: ['BATCH', 'PATCH'] },
      ])
    ).secret;
  });
  afterAll(async () => f?.close());
  beforeEach(() => f.clock.nextMinute());

  const get = (ref: string, ip: string, key = browser, session?: string) => f.pub('GET', `/public/records/${ref}?limit=1`, { key, ip, session });

  it('limits an endpoint per visitor for a browser key and across the key for a server key', async () => {
    for (let i = 0; i < 5; i++) expect((await get('tight', '10.0.0.1')).status).toBe(200);
    expectLimited(await get('tight', '10.0.0.1'), 'endpoint');
    expect((await get('tight', '10.0.0.2')).status).toBe(200);

    for (let i = 0; i < 5; i++) expect((await get('tight', `10.0.1.${i}`, server)).status).toBe(200);
    expectLimited(await get('tight', '10.0.1.99', server), 'endpoint');
    f.clock.nextMinute();
    expect((await get('tight', '10.0.1.99', server)).status).toBe(200);
  });

  it('counts a batch once per row against the endpoint', async () => {
    const batch = (n: number, from: number) =>
      f.pub('POST', '/public/records/rows/batch', {
        key: server,
        body: { rows: Array.from({ length: n }, (_, i) => ({ id: from + i, name: `Row ${from + i}` })) },
      });
    expect((await batch(8, 1)).status).toBe(200);
    expectLimited(await batch(3, 1), 'endpoint');
    expect((await batch(2, 1)).status).toBe(200);
    expectLimited(await batch(1, 1), 'endpoint');
  });

  it('gives each visitor of a browser key a twelfth of its reads; a signed-in customer is a visitor of their own', async () => {
    for (let i = 0; i < 250; i++) {
      const res = await get('wide', '10.1.0.1');
      if (res.status !== 200) throw new Error(`read ${i + 1}: ${res.status} ${res.text}`);
    }
    expectLimited(await get('wide', '10.1.0.1'), 'visitor');
    expect((await get('wide', '10.1.0.2')).status).toBe(200);
    const claimed = await f.pub('POST', '/public/claim', { key: browser, ip: '10.1.0.3', body: { ref: 'mine', values: { sku: 'SKU-00001' } } });
    expect(claimed.status, claimed.text).toBe(200);
    expect((await get('wide', '10.1.0.1', browser, claimed.body.data.session)).status).toBe(200);
  });

  it('gives the whole browser key 300 writes a minute, not counting refused ones', async () => {
    const patch = (ref: string, ip: string) => f.pub('PATCH', `/public/records/${ref}/1`, { key: browser, ip, body: { values: { name: 'Written' } } });
    for (let v = 0; v < 13; v++) {
      for (let i = 0; i < 25; i++) expect((await patch('nowhere', `10.2.${v}.1`)).status).toBe(404);
    }
    expectLimited(await patch('nowhere', '10.2.0.1'), 'visitor');
    expect((await patch('wide', '10.2.99.1')).status).toBe(200);

    f.clock.nextMinute();
    for (let v = 0; v < 12; v++) {
      for (let i = 0; i < 25; i++) {
        const res = await patch('wide', `10.3.${v}.1`);
        if (res.status !== 200) throw new Error(`visitor ${v} write ${i + 1}: ${res.status} ${res.text}`);
      }
    }
    expectLimited(await patch('wide', '10.3.99.1'), 'key');
  });

  it('limits an address to 600 requests a minute across every public route', async () => {
    for (let i = 0; i < 600; i++) {
      const res = await f.pub('GET', '/public/config', { key: null, ip: '10.4.0.1', origin: null });
      if (res.status !== 401) throw new Error(`request ${i + 1}: ${res.status}`);
    }
    expectLimited(await get('wide', '10.4.0.1'), 'address');
    expectLimited(await f.pub('GET', '/public/config', { key: server, ip: '10.4.0.1' }), 'address');
    expect((await get('wide', '10.4.0.2')).status).toBe(200);
  });
}

describe('public limits on SQLite', () => limits('sqlite'));
describe.runIf(pg)('public limits on PostgreSQL', () => limits('postgres'));
