import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bookingTablesEndpoint, publicFixture, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');

/**
 * A venue whose day opens at midnight on a clock east of UTC: 00:00 on the venue's day is the
 * evening before in UTC, so its slots' instants fall on the UTC day before. The day's slots are
 * listed, booked and rebooked like any others.
 */
function midnightOpening(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    await bookingTablesEndpoint(f, 'night-tables', 'Europe/Paris', {
      openingHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '01:00']]])),
    });
    widget = (await f.key('browser', [{ ref: 'night-tables', methods: ['POST'] }])).secret;
  });
  afterAll(async () => f?.close());

  // The tests' clock is 1 March 2026 (winter time in Paris, UTC+1); 3 March is a Tuesday.
  it('lists 00:00 and 00:30 of the venue day and books 00:30 (23:30 UTC the day before)', async () => {
    const slots = await f.pub('GET', '/public/availability/night-tables?date=2026-03-03&party=2', { key: widget });
    expect(slots.status, slots.text).toBe(200);
    expect(slots.body.data).toEqual([
      { time: '00:00', state: 'free' },
      { time: '00:30', state: 'free' },
    ]);
    const booked = await f.pub('POST', '/public/records/night-tables', {
      key: widget,
      body: { values: { starts_at: '2026-03-03T00:30', party: 2, email: 'night@example.com', guest_name: 'Night Owl' } },
    });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.data.starts_at).toMatch(/^2026-03-02[T ]23:30/);
    const after = await f.pub('GET', '/public/availability/night-tables?date=2026-03-03&party=10', { key: widget });
    expect(after.body.data).toEqual([
      { time: '00:00', state: 'free' },
      { time: '00:30', state: 'full' },
    ]);
    // The UTC day before on the venue's clock (2 March) ends at 01:00 too and has nothing of the 3rd.
    const before = await f.pub('GET', '/public/availability/night-tables?date=2026-03-02&party=10', { key: widget });
    expect(before.body.data).toEqual([
      { time: '00:00', state: 'free' },
      { time: '00:30', state: 'free' },
    ]);
  });
}

/**
 * A bar open on Tuesday from 22:00 to 01:00: the closing time before the opening runs past
 * midnight. The Tuesday lists its slots into Wednesday's small hours, and a booking at 00:30 on
 * Wednesday's date is one of Tuesday's slots; Wednesday itself is closed.
 */
function lateOpening(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    const created = await bookingTablesEndpoint(f, 'late-bar', 'Europe/Paris', { openingHours: { tue: [['22:00', '01:00']] } });
    expect(created).toBeTruthy();
    widget = (await f.key('browser', [{ ref: 'late-bar', methods: ['POST'] }])).secret;
  });
  afterAll(async () => f?.close());

  it('lists Tuesday 22:00 to 00:30 and books 00:30 on the Wednesday date as Tuesday’s slot', async () => {
    const slots = await f.pub('GET', '/public/availability/late-bar?date=2026-03-03&party=2', { key: widget });
    expect(slots.status, slots.text).toBe(200);
    expect(slots.body.data.map((s: { time: string }) => s.time)).toEqual(['22:00', '22:30', '23:00', '23:30', '00:00', '00:30']);
    const booked = await f.pub('POST', '/public/records/late-bar', {
      key: widget,
      body: { values: { starts_at: '2026-03-04T00:30', party: 10, email: 'late@example.com', guest_name: 'Late' } },
    });
    expect(booked.status, booked.text).toBe(201);
    // 00:30 in Paris on the 4th is 23:30 UTC on the 3rd.
    expect(booked.body.data.starts_at).toMatch(/^2026-03-03[T ]23:30/);
    const after = await f.pub('GET', '/public/availability/late-bar?date=2026-03-03&party=1', { key: widget });
    expect(after.body.data.at(-1)).toEqual({ time: '00:30', state: 'full' });
    // Wednesday is closed: nothing starts on it.
    const wednesday = await f.pub('GET', '/public/availability/late-bar?date=2026-03-04&party=1', { key: widget });
    expect(wednesday.body.data).toEqual([]);
    const refused = await f.pub('POST', '/public/records/late-bar', {
      key: widget,
      body: { values: { starts_at: '2026-03-04T01:00', party: 2, email: 'late@example.com', guest_name: 'Too late' } },
    });
    expect(refused.status, refused.text).toBe(400);
  });
}

describe('a venue opening at midnight east of UTC, on SQLite', () => midnightOpening('sqlite'));
describe('a bar open past midnight, on SQLite', () => lateOpening('sqlite'));
describe.runIf(pg)('a bar open past midnight, on PostgreSQL', () => lateOpening('postgres'));
describe.runIf(pg)('a venue opening at midnight east of UTC, on PostgreSQL', () => midnightOpening('postgres'));
