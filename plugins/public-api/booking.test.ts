import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { bookingEndpoints, bookingsAt, EVENING_TIMES, MINUTE, publicFixture, seedBooking as seed, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

function bookings(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  let server: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    ({ widget, server } = await bookingEndpoints(f));
  });
  afterAll(async () => f?.close());
  beforeEach(() => f.clock.nextMinute());

  const availability = async (date: string, party: number, opts: { session?: string; key?: string } = {}) => {
    const res = await f.pub('GET', `/public/availability/tables?date=${date}&party=${party}`, { key: opts.key ?? widget, session: opts.session });
    expect(res.status, res.text).toBe(200);
    for (const slot of res.body.data) expect(Object.keys(slot).sort()).toEqual(['state', 'time']);
    return Object.fromEntries(res.body.data.map((s: { time: string; state: string }) => [s.time, s.state]));
  };
  const book = (values: Record<string, unknown>, key = widget, headers: Record<string, string> = {}) =>
    f.pub('POST', '/public/records/tables', { key, body: { values }, headers });

  it('lists a day’s slots from opening to the last before closing, full when taken, past or beyond the window', async () => {
    expect(Object.keys(await availability('2026-03-10', 2))).toEqual(EVENING_TIMES);
    await seed(f, '2026-03-10 18:00:00', 9);
    const day = await availability('2026-03-10', 2);
    expect(day['19:00']).toBe('full');
    expect(day['19:30']).toBe('free');
    expect((await availability('2026-03-10', 1))['19:00']).toBe('free');
    expect(Object.values(await availability('2026-03-10', 11)).every((s) => s === 'full')).toBe(true);
    // The clock stands on Sunday 1 March, 09:00 UTC: the night slots have passed, the evening ones not.
    const today = await availability('2026-03-01', 2);
    expect(today).toMatchObject({ '01:00': 'full', '03:30': 'full', '18:00': 'free' });
    expect(Object.values(await availability('2027-03-10', 2)).every((s) => s === 'full')).toBe(true);
    expect(await availability('2026-03-10', 2, { key: server })).toEqual(await availability('2026-03-10', 2));
    const impossible = await f.pub('GET', '/public/availability/tables?date=2026-02-30&party=2', { key: widget });
    expect(impossible.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter: 'date' } });
  });

  it('keeps the venue’s clock across both daylight-saving changes of 2026 in Berlin', async () => {
    const spring = await availability('2026-03-29', 2);
    expect(Object.keys(spring)).toEqual(['01:00', '01:30', '03:00', '03:30', ...EVENING_TIMES]);
    await seed(f, '2026-03-29 01:00:00', 10); // 03:00 CEST
    await seed(f, '2026-03-29 16:30:00', 10); // 18:30 CEST
    expect(await availability('2026-03-29', 1)).toMatchObject({ '01:00': 'free', '03:00': 'full', '18:00': 'free', '18:30': 'full' });

    const autumn = await availability('2026-10-25', 2);
    expect(Object.keys(autumn)).toEqual(['01:00', '01:30', '02:00', '02:30', '03:00', '03:30', ...EVENING_TIMES]);
    await seed(f, '2026-10-25 00:00:00', 10); // 02:00 CEST, the first 02:00
    await seed(f, '2026-10-25 02:00:00', 10); // 03:00 CET
    await seed(f, '2026-10-25 17:00:00', 10); // 18:00 CET
    expect(await availability('2026-10-25', 1)).toMatchObject({
      '01:30': 'free',
      '02:00': 'full',
      '02:30': 'free',
      '03:00': 'full',
      '18:00': 'full',
      '18:30': 'free',
    });

    // A time without a zone is a time on the venue's clock; one the change skips is no slot.
    const created = await book({ starts_at: '2026-03-29T21:00', party: 2, email: 'dst@example.com' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.starts_at).toBe('2026-03-29T19:00:00');
    const skipped = await book({ starts_at: '2026-03-29T02:30', party: 2 });
    expect(skipped.body.error).toMatchObject({ code: 'PUBLIC_WRITE_REFUSED', params: { column: 'starts_at', reason: 'not-a-slot' } });
    const offset = await book({ starts_at: '2026-10-25T18:30:00+01:00', party: 2 });
    expect(offset.body.data.starts_at).toBe('2026-10-25T17:30:00');
  });

  it('does not tell the places left to a browser visitor probing party sizes', async () => {
    await seed(f, '2026-03-16 17:00:00', 3);
    const ask = (party: number, ip: string, key = widget) => f.pub('GET', `/public/availability/tables?date=2026-03-16&party=${party}`, { key, ip });
    const states: string[] = [];
    for (const party of [5, 7, 8, 6]) {
      const res = await ask(party, '198.51.100.7');
      expect(res.status, res.text).toBe(200);
      states.push(res.body.data[0].state);
    }
    expect(states).toEqual(['free', 'free', 'full', 'free']);
    // The fifth size in ten minutes would narrow 7 free / 8 full down to the count: refused.
    const fifth = await ask(9, '198.51.100.7');
    expect(fifth.status).toBe(429);
    expect(fifth.body.error).toMatchObject({ code: 'PUBLIC_RATE_LIMITED', params: { limit: 'party-sizes' } });
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await ask(7, '198.51.100.7')).status).toBe(200);
    // A party larger than the venue tells nothing and is not counted.
    expect((await ask(11, '198.51.100.7')).status).toBe(200);
    expect((await ask(9, '198.51.100.8')).status).toBe(200);
    for (const party of [1, 2, 3, 4, 9, 10]) expect((await ask(party, '198.51.100.7', server)).status).toBe(200);
    f.clock.set(f.clock.now() + 10 * MINUTE + 1000);
    expect((await ask(9, '198.51.100.7')).status).toBe(200);
  });

  it('lets exactly the last places go when 50 guests race for them', async () => {
    await seed(f, '2026-03-20 18:00:00', 6);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => book({ starts_at: '2026-03-20T19:00', party: 1, email: `racer${i}@example.com` }, server)),
    );
    const won = answers.filter((r) => r.status === 201);
    expect(won).toHaveLength(4);
    for (const r of answers.filter((a) => a.status !== 201)) {
      expect(r.status, r.text).toBe(409);
      expect(['PUBLIC_SLOT_FULL', 'PUBLIC_SLOT_BUSY']).toContain(r.body.error.code);
    }
    expect(await bookingsAt(f, '2026-03-20 18:00:00')).toBe(5);
    expect((await availability('2026-03-20', 1))['19:00']).toBe('full');
  });

  it('refuses a booking without room, in the past, off the slot grid', async () => {
    await seed(f, '2026-03-21 18:00:00', 8);
    const full = await book({ starts_at: '2026-03-21T19:00', party: 3 });
    expect(full.status).toBe(409);
    expect(full.body).toEqual({ error: { code: 'PUBLIC_SLOT_FULL', message: expect.any(String) } });
    expect((await book({ starts_at: '2026-03-21T19:00', party: 2 })).status).toBe(201);
    expect((await book({ starts_at: '2026-02-27T19:00', party: 2 })).body.error.code).toBe('PUBLIC_SLOT_FULL');
    expect((await book({ starts_at: '2026-03-21T19:10', party: 2 })).body.error.params).toEqual({ column: 'starts_at', reason: 'not-a-slot' });
    expect((await book({ starts_at: '2026-03-21T19:30', party: 0 })).body.error.params).toEqual({ column: 'party', reason: 'out-of-range' });
    expect((await book({ party: 2 })).body.error.params).toEqual({ column: 'starts_at', reason: 'required' });
  });

  it('lets a guest change or cancel only before the cancellation window', async () => {
    const created = await book({ starts_at: '2026-04-14T20:00', party: 2, email: 'late@example.com' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    const slot = Date.UTC(2026, 3, 14, 18, 0); // 20:00 CEST
    const closes = slot - 120 * MINUTE;
    f.clock.set(closes - 5 * MINUTE);
    const moved = await f.pub('PATCH', `/public/records/tables/${id}`, { key: server, body: { values: { party: 3 } } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.party).toBe(3);
    f.clock.set(closes + MINUTE);
    for (const res of [
      await f.pub('DELETE', `/public/records/tables/${id}`, { key: server }),
      await f.pub('PATCH', `/public/records/tables/${id}`, { key: server, body: { values: { party: 4 } } }),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({ code: 'PUBLIC_TOO_LATE', message: expect.any(String), params: { at: closes } });
    }
    expect(await bookingsAt(f, '2026-04-14 18:00:00')).toBe(1);
  });

  it('answers PUBLIC_TOO_EARLY for a guest’s own row before its window opens', async () => {
    await seed(f, '2026-05-05 17:00:00', 2, { code: 'EARLY-1', email: 'early@example.com' });
    const claimed = await f.pub('POST', '/public/claim', { key: widget, body: { ref: 'check-in', values: { code: 'EARLY-1', email: 'early@example.com' } } });
    expect(claimed.status, claimed.text).toBe(200);
    const session = claimed.body.data.session;
    const list = await f.pub('GET', '/public/records/check-in', { key: widget, session });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const id = list.body.data[0].id;
    const at = Date.UTC(2026, 4, 5, 17, 0);
    const early = await f.pub('GET', `/public/records/check-in/${id}`, { key: widget, session });
    expect(early.status).toBe(409);
    expect(early.body.error).toEqual({ code: 'PUBLIC_TOO_EARLY', message: expect.any(String), params: { at, from: at - 1440 * MINUTE } });
    expect((await f.pub('PATCH', `/public/records/check-in/${id}`, { key: widget, session, body: { values: { guest_name: 'Ada' } } })).body.error.code).toBe(
      'PUBLIC_TOO_EARLY',
    );
    f.clock.set(at - 1440 * MINUTE + MINUTE);
    // The first session has lasted its day by now.
    expect((await f.pub('GET', `/public/records/check-in/${id}`, { key: widget, session })).body.error.code).toBe('PUBLIC_SESSION_REQUIRED');
    const again = await f.pub('POST', '/public/claim', { key: widget, body: { ref: 'check-in', values: { code: 'EARLY-1', email: 'early@example.com' } } });
    const open = await f.pub('PATCH', `/public/records/check-in/${id}`, {
      key: widget,
      session: again.body.data.session,
      body: { values: { guest_name: 'Ada' } },
    });
    expect(open.status, open.text).toBe(200);
    expect(open.body.data.guest_name).toBe('Ada');
  });
}

describe('bookings on SQLite', () => bookings('sqlite'));
describe.runIf(pg)('bookings on PostgreSQL', () => bookings('postgres'));

/** The race on MariaDB/MySQL as well: GET_LOCK is the one lock there that is neither SQLite's nor PostgreSQL's. */
describe.runIf(my)('the booking race on MariaDB/MySQL', () => {
  let f: PublicFixture;
  let server: string;
  beforeAll(async () => {
    f = await publicFixture('mysql');
    ({ server } = await bookingEndpoints(f));
  });
  afterAll(async () => f?.close());

  it('lets exactly the last places go when 50 guests race for them', async () => {
    await seed(f, '2026-03-20 18:00:00', 6);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        f.pub('POST', '/public/records/tables', { key: server, body: { values: { starts_at: '2026-03-20T19:00', party: 1, email: `racer${i}@example.com` } } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(4);
    for (const r of answers.filter((a) => a.status !== 201)) expect(['PUBLIC_SLOT_FULL', 'PUBLIC_SLOT_BUSY']).toContain(r.body.error.code);
    expect(await bookingsAt(f, '2026-03-20 18:00:00')).toBe(5);
  });
});

/** SQLite keeps a DATETIME as text, and a venue's own screens may spell an instant any ISO way. */
describe('capacity over every text form of a time on SQLite', () => {
  let f: PublicFixture;
  let widget: string;
  beforeAll(async () => {
    f = await publicFixture('sqlite');
    ({ widget } = await bookingEndpoints(f));
  });
  afterAll(async () => f?.close());

  const states = async (date: string, party: number) => {
    const res = await f.pub('GET', `/public/availability/tables?date=${date}&party=${party}`, { key: widget });
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries(res.body.data.map((s: { time: string; state: string }) => [s.time, s.state]));
  };

  it('counts rows stored with T, Z, an offset or a fraction: availability says full and the booking is refused', async () => {
    // 18:00 in Berlin on 24 March 2026 (CET) is 17:00 UTC: ten places, spelt five ways.
    for (const [at, party] of [
      ['2026-03-24T17:00:00', 4],
      ['2026-03-24T17:00:00Z', 2],
      ['2026-03-24T19:00:00+02:00', 2],
      ['2026-03-24T17:00:00.000', 1],
      ['2026-03-24 16:00:00-01:00', 1],
    ] as const)
      await seed(f, at, party);
    // 17:30 UTC spelt with an offset belongs to the 18:30 slot, not to 18:00.
    await seed(f, '2026-03-24T18:30:00+01:00', 9);
    // 16:00 UTC (before opening) spelt on the next day's date: in no slot.
    await seed(f, '2026-03-25T01:00:00+09:00', 5);
    expect(await states('2026-03-24', 1)).toMatchObject({ '18:00': 'full', '18:30': 'free', '19:00': 'free' });
    expect((await states('2026-03-24', 2))['18:30']).toBe('full');
    const refused = await f.pub('POST', '/public/records/tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-24T18:00', party: 1, email: 'late@example.com' } },
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('PUBLIC_SLOT_FULL');
    expect(
      (await f.pub('POST', '/public/records/tables', { key: widget, body: { values: { starts_at: '2026-03-24T18:30', party: 2 } } })).body.error.code,
    ).toBe('PUBLIC_SLOT_FULL');
    const fits = await f.pub('POST', '/public/records/tables', { key: widget, body: { values: { starts_at: '2026-03-24T18:30', party: 1 } } });
    expect(fits.status, fits.text).toBe(201);
  });
});

function confirmations(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  let server: string;
  const smtp = new TestSmtpServer();
  beforeAll(async () => {
    await smtp.start();
    f = await publicFixture(dialect);
    ({ widget, server } = await bookingEndpoints(f));
  });
  afterAll(async () => {
    await f?.close();
    await smtp.stop();
  });

  it('books without e-mail set up, then confirms new bookings in the guest’s language, never changes', async () => {
    const quiet = await f.pub('POST', '/public/records/tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-12T19:00', party: 2, email: 'quiet@example.com' } },
    });
    expect(quiet.status).toBe(201);

    expect((await f.api('PUT', '/settings/email', smtp.settings())).status).toBe(200);
    const res = await f.pub('POST', '/public/records/tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-12T19:00', party: 3, email: 'gast@example.com', locale: 'de' } },
      headers: { referer: 'https://shop.example/reservieren?x=1' },
    });
    expect(res.status, res.text).toBe(201);
    const [mail] = await smtp.waitFor(1);
    expect(smtp.received).toHaveLength(1);
    const code = (await f.db.selectFrom('bookings').select('code').where('email', '=', 'gast@example.com').executeTakeFirst())!.code as string;
    expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(mail!.to).toEqual(['gast@example.com']);
    expect(mail!.subject).toContain('Ihre Reservierung');
    expect(mail!.subject).toContain(code);
    expect(mail!.text).toContain('19:00');
    expect(mail!.text).toContain('Personen: 3');
    expect(mail!.text).toContain('2 Stunden');
    expect(mail!.text).toContain(`https://shop.example/reservieren?x=1&booking=${code}`);

    await f.pub('POST', '/public/records/tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-12T19:30', party: 2, email: 'invite@example.com' } },
      headers: { 'accept-language': 'fr-CH, de;q=0.5' },
    });
    const [, french] = await smtp.waitFor(2);
    expect(french!.subject).toContain('Votre réservation');

    const claimed = await f.pub('POST', '/public/claim', { key: widget, body: { ref: 'my-booking', values: { code, email: 'gast@example.com' } } });
    const session = claimed.body.data.session;
    const id = (await f.pub('GET', '/public/records/my-booking', { key: widget, session })).body.data[0].id;
    expect((await f.pub('PATCH', `/public/records/my-booking/${id}`, { key: widget, session, body: { values: { party: 4 } } })).status).toBe(200);
    expect((await f.pub('DELETE', `/public/records/my-booking/${id}`, { key: widget, session })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received).toHaveLength(2);
  });

  it('takes one e-mail address only: a list or a display name is refused and nothing is sent', async () => {
    expect((await f.api('PUT', '/settings/email', smtp.settings())).status).toBe(200);
    const before = smtp.received.length;
    for (const email of [
      'a@x.example, b@y.example, c@z.example',
      'a@x.example;b@y.example',
      'Guest <a@x.example>',
      'a@x.example b@y.example',
      'not-an-address',
    ]) {
      const res = await f.pub('POST', '/public/records/tables', { key: widget, body: { values: { starts_at: '2026-03-13T19:00', party: 2, email } } });
      expect(res.status, email).toBe(400);
      expect(res.body.error).toEqual({ code: 'PUBLIC_WRITE_REFUSED', message: expect.any(String), params: { column: 'email', reason: 'format' } });
    }
    expect(await bookingsAt(f, '2026-03-13 18:00:00')).toBe(0);
    const one = await f.pub('POST', '/public/records/tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-13T19:00', party: 2, email: 'one@example.com' } },
    });
    expect(one.status, one.text).toBe(201);
    const mails = await smtp.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received).toHaveLength(before + 1);
    expect(mails[before]!.to).toEqual(['one@example.com']);
    // A change is checked too: the column never holds a list.
    const patched = await f.pub('PATCH', `/public/records/tables/${one.body.data.id}`, {
      key: server,
      body: { values: { email: 'one@example.com, two@example.com' } },
    });
    expect(patched.body.error).toEqual({ code: 'PUBLIC_WRITE_REFUSED', message: expect.any(String), params: { column: 'email', reason: 'format' } });
  });
}

describe('booking confirmations on SQLite', () => confirmations('sqlite'));
describe.runIf(pg)('booking confirmations on PostgreSQL', () => confirmations('postgres'));
