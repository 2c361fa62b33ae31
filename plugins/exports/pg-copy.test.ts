import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { cellText } from './formats/cells.js';
import { connect, emptySource, type Source } from './testing.js';

/*
 * A CSV export on PostgreSQL never sees a row in JavaScript: the server writes each value's text
 * (engine/rows postgresCellText). Here every portable type is checked against what GET /data
 * answers for the same rows, through the same cell rule the other formats use (cells.ts).
 */

const DDL = `
create type mood as enum ('happy', 'sad', '');
create table typed (
  id integer primary key, big bigint, dec numeric(20,6), fl double precision, flag boolean,
  day date, at timestamp, at_tz timestamptz, t time, code char(5), name varchar(40), body text,
  u uuid, m mood, doc jsonb, raw bytea, tags integer[]
);
insert into typed values
  (1, 9007199254740993, 12.300000, 1.5, true, '2024-02-29', '2024-03-04 05:06:07.123456', '2024-03-04 05:06:07+02', '10:11:12.5',
   'ab', 'Say "hi", ok', E'two\\nlines\\r\\nand a\\ttab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'happy', '{"k": [1, "x"]}', '\\xdeadbeef00', '{1,2,3}'),
  (2, -1, 0, -0.25, false, '1999-12-31', '2024-03-04 05:06:07', '2024-12-31 23:59:59.5+00', '00:00:00',
   '', '', '', null, '', '"just a string"', '\\x', '{}'),
  (3, null, null, null, null, null, 'infinity', '-infinity', null, null, null, null, null, null, null, null, null),
  (4, 0, 1e-6, 1e20, true, '0001-01-01', '2000-01-01 00:00:00.000001', '1970-01-01 00:00:00+00', '23:59:59.999999',
   'x    ', 'ünïcödé ✓', repeat('long ', 100), 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'sad', '[]', decode(repeat('ab', 100), 'hex'), '{-1}');
`;

describe.runIf(await databaseAvailable('postgres'))('CSV export through COPY on PostgreSQL', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ jobs: { pollMs: 20 } }));
    source = await emptySource('postgres');
    await source.exec(DDL);
    connectionId = await connect(admin, source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('writes every type as the cell of the value GET /data answers', async () => {
    const list = await admin.get(`/api/v1/data/${connectionId}/typed?limit=10&sort=id`);
    expect(list.status, list.text).toBe(200);
    const rows = list.body.data.rows as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(4);

    const res = await admin.post('/api/v1/exports', { connectionId, table: 'typed', format: 'csv', sort: 'id' });
    expect(res.status, res.text).toBe(202);
    const job = await inst.app.kernel.jobs.waitFor(res.body.data.export.jobId, 20_000);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const file = await fetch(`${inst.url}/api/v1/exports/${res.body.data.export.id}/download`, {
      headers: { cookie: `svc_session=${admin.cookie('svc_session')}` },
    });
    const records: string[][] = parseCsv(await file.text());
    const header = records[0]!;
    expect(header).toEqual(['id', 'big', 'dec', 'fl', 'flag', 'day', 'at', 'at_tz', 't', 'code', 'name', 'body', 'u', 'm', 'doc', 'raw', 'tags']);

    const types = Object.fromEntries(
      (await admin.get(`/api/v1/connections/${connectionId}/schema`)).body.data.model.tables
        .find((t: { name: string }) => t.name === 'typed')
        .columns.map((c: { name: string; type: string }) => [c.name, c.type]),
    );
    records.slice(1).forEach((cells, r) => {
      header.forEach((name, i) => {
        const want = cellText(rows[r]![name], types[name]) ?? '';
        // jsonb is written with PostgreSQL's spacing: compare JSON cells as values.
        if (types[name] === 'json' && want) expect([name, JSON.parse(cells[i]!)]).toEqual([name, JSON.parse(want)]);
        // A double is written in PostgreSQL's shortest form (1e+20 where JavaScript writes 100000000000000000000): the same number.
        else if (types[name] === 'float' && want) expect([name, Number(cells[i])]).toEqual([name, Number(want)]);
        else expect([r + 1, name, cells[i]]).toEqual([r + 1, name, want]);
      });
    });
  });
});
