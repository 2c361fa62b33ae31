import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bookingEndpoints, publicFixture, seedBooking, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');

function sessions(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  let other: string;
  let notFound: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    f = await publicFixture(dialect);
    ({ widget } = await bookingEndpoints(f));
    other = (await f.key('browser', [{ ref: 'my-booking', methods: ['GET'] }])).secret;
    await seedBooking(f, '2026-03-10 18:00:00', 10, { code: 'AAAA-1111', email: 'ann@example.com', guest_name: 'Ann' });
    await seedBooking(f, '2026-03-11 18:00:00', 2, { code: 'BBBB-2222', email: 'bob@example.com', guest_name: 'Bob' });
    await seedBooking(f, '2026-03-12 18:00:00', 2, { code: 'AAAA-1111', email: 'ann@example.com', guest_name: 'Ann', venue: 'annex' });
    for (const r of await f.db.selectFrom('bookings').select(['id', 'guest_name', 'venue']).execute()) ids[`${r.guest_name}-${r.venue}`] = Number(r.id);
    notFound = (await f.pub('GET', '/public/records/no-such-endpoint', { key: widget })).text;
  });
  afterAll(async () => f?.close());
  beforeEach(() => f.clock.nextMinute());

  const claim = (values: Record<string, unknown>, ref = 'my-booking', key = widget) => f.pub('POST', '/public/claim', { key, body: { ref, values } });

  it('claims a session with the identity columns; it reaches only the guest’s own rows inside the filters', async () => {
    const res = await claim({ code: 'AAAA-1111', email: 'ann@example.com' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ session: expect.any(String), expiresAt: f.clock.now() + 24 * 60 * 60_000 });
    const session = res.body.data.session;
    const mine = await f.pub('GET', '/public/records/my-booking', { key: widget, session });
    expect(mine.body.data.map((r: any) => r.id)).toEqual([ids['Ann-main']]);
    expect(mine.body.data[0]).toMatchObject({ code: 'AAAA-1111', email: 'ann@example.com', guest_name: 'Ann', party: 10 });

    const bob = ids['Bob-main'];
    for (const r of [
      await f.pub('GET', `/public/records/my-booking/${bob}`, { key: widget, session }),
      await f.pub('PATCH', `/public/records/my-booking/${bob}`, { key: widget, session, body: { values: { guest_name: 'Mallory' } } }),
      await f.pub('DELETE', `/public/records/my-booking/${bob}`, { key: widget, session }),
      await f.pub('GET', `/public/records/my-booking/${ids['Ann-annex']}`, { key: widget, session }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.text).toBe(notFound);
    }
    expect((await f.db.selectFrom('bookings').select('guest_name').where('id', '=', bob).executeTakeFirst())?.guest_name).toBe('Bob');

    const changed = await f.pub('PATCH', `/public/records/my-booking/${ids['Ann-main']}`, { key: widget, session, body: { values: { guest_name: 'Ann B.' } } });
    expect(changed.body.data.guest_name).toBe('Ann B.');
    const identity = await f.pub('PATCH', `/public/records/my-booking/${ids['Ann-main']}`, {
      key: widget,
      session,
      body: { values: { email: 'x@example.com' } },
    });
    expect(identity.body.error).toMatchObject({ code: 'PUBLIC_WRITE_REFUSED', params: { column: 'email', reason: 'identity' } });
  });

  it('refuses an endpoint that needs a customer without a live session of this key', async () => {
    const missing = await f.pub('GET', '/public/records/my-booking', { key: widget });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'PUBLIC_SESSION_REQUIRED', params: { reason: 'missing' } });
    expect((await f.pub('GET', '/public/records/my-booking', { key: widget, session: 'made-up' })).body.error).toMatchObject({ params: { reason: 'invalid' } });
    const session = (await claim({ code: 'AAAA-1111', email: 'ann@example.com' })).body.data.session;
    expect((await f.pub('GET', '/public/records/my-booking', { key: other, session })).body.error).toMatchObject({
      code: 'PUBLIC_SESSION_REQUIRED',
      params: { reason: 'invalid' },
    });
  });

  it('answers a wrong claim like any missing row, and names a missing identity value', async () => {
    for (const values of [
      { code: 'AAAA-1111', email: 'bob@example.com' },
      { code: 'NOPE', email: 'ann@example.com' },
    ]) {
      const res = await claim(values);
      expect(res.status).toBe(404);
      expect(res.text).toBe(notFound);
    }
    expect((await claim({ code: 'AAAA-1111', email: 'ann@example.com' }, 'tables')).text).toBe(notFound);
    const partial = await claim({ code: 'AAAA-1111' });
    expect(partial.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter: 'values.email', reason: 'required' } });
    const extra = await claim({ code: 'AAAA-1111', email: 'ann@example.com', party: 2 });
    expect(extra.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter: 'values.party' } });
  });

  it('does not count the guest’s own booking against them in availability', async () => {
    const session = (await claim({ code: 'AAAA-1111', email: 'ann@example.com' })).body.data.session;
    const slots = async (s?: string) => (await f.pub('GET', '/public/availability/tables?date=2026-03-10&party=10', { key: widget, session: s })).body.data;
    expect((await slots()).find((x: any) => x.time === '19:00').state).toBe('full');
    expect((await slots(session)).find((x: any) => x.time === '19:00').state).toBe('free');
  });

  it('ends a session with DELETE /public/session', async () => {
    const session = (await claim({ code: 'BBBB-2222', email: 'bob@example.com' })).body.data.session;
    expect((await f.pub('GET', '/public/records/my-booking', { key: widget, session })).status).toBe(200);
    const ended = await f.pub('DELETE', '/public/session', { key: widget, session });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ data: {} });
    expect((await f.pub('GET', '/public/records/my-booking', { key: widget, session })).body.error).toMatchObject({
      code: 'PUBLIC_SESSION_REQUIRED',
      params: { reason: 'invalid' },
    });
    expect((await f.pub('DELETE', '/public/session', { key: widget })).body.error).toMatchObject({
      code: 'PUBLIC_SESSION_REQUIRED',
      params: { reason: 'missing' },
    });
    const stored = await f.inst.app.kernel.db
      .withTables<{ public_sessions: { token_hash: string } }>()
      .selectFrom('public_sessions')
      .select('token_hash')
      .execute();
    expect(stored.length).toBeGreaterThan(0);
    for (const s of stored) expect(s.token_hash).not.toBe(session);
  });
}

describe('customer sessions on SQLite', () => sessions('sqlite'));
describe.runIf(pg)('customer sessions on PostgreSQL', () => sessions('postgres'));
