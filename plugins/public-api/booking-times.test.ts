import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { publicFixture, RULES, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

const TABLE: Record<Dialect, string> = {
  sqlite: 'create table text_bookings (id integer primary key autoincrement not null, starts_at varchar(40) not null, party integer not null default 2)',
  postgres: 'create table text_bookings (id serial primary key, starts_at varchar(40) not null, party integer not null default 2)',
  mysql: 'create table text_bookings (id int not null auto_increment primary key, starts_at varchar(40) not null, party int not null default 2)',
};

/**
 * A booking time kept in a text column (the booking rules allow one on every dialect): the
 * database compares text, and one instant has many spellings. Capacity must count instants.
 */
function textTimes(dialect: Dialect) {
  let f: PublicFixture;
  let widget: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    await sql.raw(TABLE[dialect]).execute(f.db);
    expect((await f.api('POST', `/connections/${f.connectionId}/introspect`, {})).status).toBe(200);
    await f.endpoint({
      ref: 'text-tables',
      table: 'text_bookings',
      columns: ['id', 'starts_at', 'party'],
      writable: ['starts_at', 'party'],
      timeZone: 'Europe/Berlin',
      booking: { ...RULES, emailColumn: null, codeColumn: null, localeColumn: null },
    });
    widget = (await f.key('browser', [{ ref: 'text-tables', methods: ['POST'] }])).secret;
  });
  afterAll(async () => f?.close());

  const states = async (date: string, party: number) => {
    const res = await f.pub('GET', `/public/availability/text-tables?date=${date}&party=${party}`, { key: widget });
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries(res.body.data.map((s: { time: string; state: string }) => [s.time, s.state]));
  };
  const book = (starts_at: string, party: number) => f.pub('POST', '/public/records/text-tables', { key: widget, body: { values: { starts_at, party } } });

  it('counts every spelling of an instant, its own writes included, the same in availability and at write time', async () => {
    // 19:00 in Berlin on 24 March 2026 is 18:00 UTC.
    for (const [at, party] of [
      ['2026-03-24 18:00:00', 2],
      ['2026-03-24T18:00:00', 2],
      ['2026-03-24T18:00:00.000Z', 1],
      ['2026-03-24T20:00:00+02:00', 1],
    ] as const)
      await f.db.insertInto('text_bookings').values({ starts_at: at, party }).execute();
    expect((await states('2026-03-24', 4))['19:00']).toBe('free');
    const created = await book('2026-03-24T19:00', 4);
    expect(created.status, created.text).toBe(201);
    expect(await states('2026-03-24', 1)).toMatchObject({ '18:30': 'free', '19:00': 'full', '19:30': 'free' });
    const refused = await book('2026-03-24T19:00', 1);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('PUBLIC_SLOT_FULL');
    const rows = await f.db.selectFrom('text_bookings').select('id').execute();
    expect(rows).toHaveLength(5);
  });
}

describe('booking times in a text column on SQLite', () => textTimes('sqlite'));
describe.runIf(pg)('booking times in a text column on PostgreSQL', () => textTimes('postgres'));
describe.runIf(my)('booking times in a text column on MariaDB/MySQL', () => textTimes('mysql'));
