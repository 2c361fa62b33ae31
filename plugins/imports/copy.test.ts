import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, type Source } from '../exports/testing.js';
import { rowRefusal } from './failure.js';
import { copyable, copyField, copyGroups, copyLine, CopyLines, copyRows, copyText } from './pg-copy.js';
import { uploadFile } from './testing.js';
import { USE_DEFAULT, type PendingRow, type WriteTarget } from './write.js';

const hasPg = await databaseAvailable('postgres');
const row = (line: number, values: unknown[]): PendingRow => ({ line, values, raw: [] });
const target = (columns: string[], name = 't'): WriteTarget => ({ dialect: 'postgres', table: { schema: null, name }, columns, mode: 'insert', key: [] });

describe('COPY text', () => {
  it('escapes what the text format gives a meaning to, and nothing else', () => {
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    // \N as data is not NULL; a NUL is escaped so a digit after it stays a digit.
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField('x\u00001')).toBe('x\\0001');
    expect(copyField('"quoted", é 😀')).toBe('"quoted", é 😀');
    expect(copyField('')).toBe('');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(true)).toBe('t');
    expect(copyField(-0.5)).toBe('-0.5');
    expect(copyField(Buffer.from([0, 0x5c, 0xff]))).toBe('\\\\x005cff');
    expect(copyField(new Date(0))).toBeUndefined();
  });

  it('makes one line per row, and one group per set of columns left to their defaults', () => {
    const rows = [row(2, [1, 'a']), row(3, [2, USE_DEFAULT]), row(4, [3, 'c']), row(5, [USE_DEFAULT, USE_DEFAULT])];
    const groups = copyGroups(target(['id', 'name']), rows);
    expect(groups.map((g) => [g.at, g.rows.map((r) => r.line)])).toEqual([
      [
        [0, 1],
        [2, 4],
      ],
      [[0], [3]],
      [[], [5]],
    ]);
    expect(copyText(groups[0]!.rows, groups[0]!.at)).toBe('1\ta\n3\tc\n');
    expect(copyText([row(2, [new Date(0)])], [0])).toBeNull();
  });

  it('gives a unit held as lines the text its values would give, past the Buffer it starts with', () => {
    // ~1 MB of text over 3 000 rows: several spills and the Buffer grown from 256 KiB; multi-byte characters included.
    const rows = Array.from({ length: 3_000 }, (_, i) =>
      row(i + 2, [i, `é😀\t${'x'.repeat(i % 600)}`, i % 3 === 0 ? null : i / 4, i % 2 === 0, Buffer.from([i % 256])]),
    );
    const lines = new CopyLines();
    rows.forEach((r, i) => lines.add(i + 1, copyLine(r.values)!));
    expect(lines.size).toBe(3_000);
    expect(lines.seqs.slice(0, 3)).toEqual([1, 2, 3]);
    expect(lines.text().toString('utf8')).toBe(copyText(rows, [0, 1, 2, 3, 4]));
    // A value left to its default, or without COPY text, keeps its row as values.
    expect(copyLine([1, USE_DEFAULT])).toBeNull();
    expect(copyLine([new Date(0)])).toBeNull();
    expect(copyLine([])).toBeNull();
  });
});

describe.each(hasPg ? ['postgres'] : [])('COPY into %s', () => {
  let source: Source;
  let client: pg.Client;

  beforeAll(async () => {
    source = await emptySource('postgres');
    client = new pg.Client({ connectionString: source.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await source?.cleanup();
  });

  it('stores every value as given: control characters, backslashes, unicode, NULL against empty, bytes', async () => {
    await client.query('create table edge_values (n integer, t text, b bytea, f float8, ok boolean)');
    const texts = ['tab\there', 'line\nbreak', 'cr\rlf\r\n', 'back\\slash\\', '\\N', '\\.', '"quotes" and \'single\'', 'é 😀 \u0301 \u2028', '', null, 'a\\tb'];
    const bytes = Buffer.from([0, 9, 10, 13, 0x5c, 0x4e, 0xff]);
    const rows = texts.map((t, i) => row(i + 1, [i, t, i === 0 ? bytes : null, i === 1 ? 1.5e-300 : i, i % 2 === 0]));
    // Inside a transaction, as an import runs it (the write takes a savepoint).
    await client.query('begin');
    expect(await copyRows(client, target(['n', 't', 'b', 'f', 'ok'], 'edge_values'), rows)).toBe(true);
    await client.query('commit');
    const got = await client.query('select n, t, b, f, ok from edge_values order by n');
    expect(got.rows.map((r) => r.t)).toEqual(texts);
    expect(got.rows[0].b).toEqual(bytes);
    expect(got.rows[1].f).toBe(1.5e-300);
    expect(got.rows.map((r) => r.ok)).toEqual(texts.map((_, i) => i % 2 === 0));
  });

  it('is used only where it does what INSERT does', async () => {
    await client.query(`
      create table plain (id integer, name text);
      create table parted (id integer, name text) partition by range (id);
      create view plain_view as select * from plain;
      create table with_rls (id integer, name text);
      alter table with_rls enable row level security;
      create table with_rule (id integer, name text);
      create rule no_dups as on insert to with_rule where exists (select 1 from with_rule w where w.id = new.id) do instead nothing;
      create table with_identity (id integer generated always as identity, name text);
      create schema "odd ""schema""";
      create table "odd ""schema""".plain (id integer, name text);`);
    const can = (name: string, columns = ['id', 'name'], schema: string | null = null) => copyable(source.db(), { table: { schema, name }, columns });
    expect(await can('plain')).toBe(true);
    expect(await can('parted')).toBe(true);
    expect(await can('plain', ['id'], 'odd "schema"')).toBe(true);
    expect(await can('plain_view')).toBe(false);
    expect(await can('with_rls')).toBe(false);
    expect(await can('with_rule')).toBe(false);
    expect(await can('with_identity')).toBe(false);
    expect(await can('with_identity', ['name'])).toBe(true);
    expect(await can('missing')).toBe(false);
  });

  it('is refused as INSERT would be: a NUL, a duplicate key, a missing value', async () => {
    await client.query('create table edge_refused (id integer primary key, t text not null)');
    const t = target(['id', 't'], 'edge_refused');
    const refusal = async (rows: PendingRow[]) => {
      await client.query('begin');
      try {
        await copyRows(client, t, rows);
        return null;
      } catch (err) {
        return rowRefusal('postgres', err);
      } finally {
        await client.query('rollback');
      }
    };
    expect(await refusal([row(2, [1, 'nul \u0000 inside'])])).toMatch(/^invalid value: .*0x00/);
    expect(await refusal([row(2, [1, 'a']), row(3, [1, 'b'])])).toMatch(/^duplicate key \(edge_refused_pkey\)$/);
    expect(await refusal([row(2, [1, null])])).toBe('missing required value in t');
    // A refusal undoes the rows before it and leaves the transaction usable.
    await client.query('begin');
    await client.query(`insert into edge_refused values (5, 'kept')`);
    await expect(copyRows(client, t, [row(2, [6, 'a']), row(3, [7, null])])).rejects.toMatchObject({ code: '23502' });
    expect((await client.query('select id from edge_refused order by id')).rows).toEqual([{ id: 5 }]);
    await client.query('commit');
  });
});

// Through the app: the same file into a table COPY can take and into one it cannot (row-level
// security on: the INSERT path), each row recording the statement that wrote it.
const DDL = (name: string) => `
  create table ${name} (
    id integer primary key, t text, v varchar(12), n numeric(12,2), tz timestamptz, ts timestamp, d date,
    ok boolean not null default true, j jsonb, by bytea, u uuid, f float8, big bigint, code text not null default 'dflt',
    tags text[], via text);
  create trigger ${name}_via before insert on ${name} for each row execute function note_via();`;

const EDGE_CSV = [
  'id,t,v,n,tz,ts,d,ok,j,by,u,f,big,tags',
  '1,"tab\there, ""quoted""",short,12.345,2024-03-01 10:00:00+02:00,2024-03-01T10:00:00Z,2024-02-29,yes,"{""a"": [1, ""x""]}",AAEC/w==,6F9619FF-8B86-D011-B42D-00CF4FC964FF,1e-5,9007199254740993,"{a,""b c""}"',
  '2,"two\nlines\\ and \\N",,-0.5,2024-03-01T08:00Z,2024-03-01 10:00:00.123456,,0,null,,,-0,-42,{}',
  '3,,é😀,0,,,,,,,,,,',
  '4,\\.,x,1,,,,t,"""s""",,,,,',
].join('\r\n');

async function runImport(inst: TestInstance, admin: HttpClient, body: object): Promise<{ id: string; state: string; counts: Record<string, number> }> {
  const created = await admin.post('/api/v1/imports', body);
  expect(created.status, created.text).toBe(201);
  const run = await admin.post(`/api/v1/imports/${created.body.data.import.id}/run`);
  expect(run.status, run.text).toBe(202);
  await inst.app.kernel.jobs.waitFor(run.body.data.import.jobId, 60_000);
  return (await admin.get(`/api/v1/imports/${created.body.data.import.id}`)).body.data.import;
}

describe.each(hasPg ? ['postgres'] : [])('imports into %s by COPY', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  const upload = async (content: string) => {
    const res = await uploadFile(inst.url, admin, 'file.csv', content);
    expect(res.status, res.text).toBe(201);
    return res.body.data.upload.id as string;
  };
  const report = async (id: string) => {
    const res = await admin.get(`/api/v1/imports/${id}/error-report`);
    expect(res.status, res.text).toBe(200);
    return (parseCsv(res.text) as string[][]).slice(1).map((r) => [Number(r[0]), r[1]!] as const);
  };
  const rows = async (query: string) => (await sql.raw<Record<string, unknown>>(query).execute(source.db())).rows;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 } }));
    source = await emptySource('postgres');
    await source.exec(`
      create function note_via() returns trigger language plpgsql as $$
        begin new.via := case when current_query() ~* '\\mcopy\\s+"' then 'copy' else lower(split_part(ltrim(current_query()), ' ', 1)) end; return new; end $$;
      ${DDL('by_copy')}
      ${DDL('by_insert')}
      alter table by_insert enable row level security;
      create table parent (id integer primary key);
      insert into parent values (1), (2);
      create table child (id integer primary key, parent_id integer not null references parent, n integer not null, note text);
      insert into child values (1, 1, 0, 'there before');`);
    connectionId = await connect(admin, source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('stores what the INSERT path stores, defaults included', async () => {
    const uploadId = await upload(EDGE_CSV);
    const mapping = Object.fromEntries(
      EDGE_CSV.split('\r\n')[0]!
        .split(',')
        .map((c) => [c, c]),
    );
    for (const table of ['by_copy', 'by_insert']) {
      const imp = await runImport(inst, admin, { uploadId, connectionId, table, mapping, atomic: true });
      expect(imp, table).toMatchObject({ state: 'succeeded', counts: { total: 4, inserted: 4, refused: 0 } });
    }
    expect((await rows('select distinct via from by_copy')).map((r) => r.via)).toEqual(['copy']);
    expect((await rows('select distinct via from by_insert')).map((r) => r.via)).toEqual(['insert']);
    const cols = 'id, t, v, n, tz, ts, d, ok, j, by, u, f, big, code, tags';
    expect(await rows(`select ${cols} from by_copy except select ${cols} from by_insert`)).toEqual([]);
    expect(await rows(`select ${cols} from by_insert except select ${cols} from by_copy`)).toEqual([]);
    const got = await rows(
      `select id, t, n::text as n, tz = '2024-03-01 08:00:00Z' as tz_ok, ts::text as ts, ok, j::text as j, encode(by, 'hex') as by, big::text as big, code, tags from by_copy order by id`,
    );
    expect(got).toEqual([
      {
        id: 1,
        t: 'tab\there, "quoted"',
        n: '12.35',
        tz_ok: true,
        ts: '2024-03-01 10:00:00',
        ok: true,
        j: '{"a": [1, "x"]}',
        by: '000102ff',
        big: '9007199254740993',
        code: 'dflt',
        tags: ['a', 'b c'],
      },
      {
        id: 2,
        t: 'two\nlines\\ and \\N',
        n: '-0.50',
        tz_ok: true,
        ts: '2024-03-01 10:00:00.123456',
        ok: false,
        j: 'null',
        by: null,
        big: '-42',
        code: 'dflt',
        tags: [],
      },
      { id: 3, t: null, n: '0.00', tz_ok: null, ts: null, ok: true, j: null, by: null, big: null, code: 'dflt', tags: null },
      { id: 4, t: '\\.', n: '1.00', tz_ok: null, ts: null, ok: true, j: '"s"', by: null, big: null, code: 'dflt', tags: null },
    ]);
  });

  // Refused rows spread over two COPY statements (a unit is 12 500 rows of 4 columns),
  // after records spanning two lines: each refusal keeps its line.
  const many = (n: number) => {
    const lines = ['id,parent_id,n,note'];
    const refusals: Array<[number, RegExp]> = [];
    let line = 2; // the physical line the next record starts on
    for (let i = 2; i <= n + 1; i++) {
      let rec = `${i},${(i % 2) + 1},${i},"a\tb"`;
      if (i === 7) rec = '7,1,7,"two\nlines"';
      else if (i === 3_000) {
        rec = '1,1,3000,';
        refusals.push([line, /^duplicate key \(child_pkey\)$/]);
      } else if (i === 9_000) {
        rec = '9000,3,1,';
        refusals.push([line, /^foreign key violation \(child_parent_id_fkey\)$/]);
      } else if (i === 13_000) {
        rec = '13000,2,,';
        refusals.push([line, /^missing required value in n$/]);
      } else if (i === 14_000) {
        rec = '14000,2,x,';
        refusals.push([line, /^n: not a whole number$/]);
      } else if (i === 15_500) {
        rec = '15499,2,1,';
        refusals.push([line, /^duplicate key \(child_pkey\)$/]);
      }
      lines.push(rec);
      line += rec.split('\n').length;
    }
    return { csv: lines.join('\n'), refusals };
  };

  it('names each refused row with its line, all or nothing, batch by batch and dry', async () => {
    const { csv, refusals } = many(16_000);
    const uploadId = await upload(csv);
    const mapping = { id: 'id', parent_id: 'parent_id', n: 'n', note: 'note' };
    const expectReport = async (id: string) => {
      const got = await report(id);
      expect(got.map(([line]) => line)).toEqual(refusals.map(([line]) => line));
      got.forEach(([line, reason], i) => expect(reason, `line ${line}`).toMatch(refusals[i]![1]));
    };

    const atomic = await runImport(inst, admin, { uploadId, connectionId, table: 'child', mapping, atomic: true, batchSize: 100 });
    expect(atomic).toMatchObject({ state: 'failed', counts: { total: 16_000, inserted: 0, refused: 5 } });
    await expectReport(atomic.id);
    expect(await rows('select count(*)::int as n from child')).toEqual([{ n: 1 }]);

    const dry = await runImport(inst, admin, { uploadId, connectionId, table: 'child', mapping, atomic: false, dryRun: true, batchSize: 100 });
    expect(dry).toMatchObject({ state: 'succeeded', counts: { total: 16_000, inserted: 15_995, refused: 5 } });
    await expectReport(dry.id);
    expect(await rows('select count(*)::int as n from child')).toEqual([{ n: 1 }]);

    const batched = await runImport(inst, admin, { uploadId, connectionId, table: 'child', mapping, atomic: false, batchSize: 500 });
    expect(batched).toMatchObject({ state: 'succeeded', counts: { total: 16_000, inserted: 15_995, refused: 5 } });
    await expectReport(batched.id);
    expect(await rows(`select count(*)::int as n, count(*) filter (where note = e'a\\tb')::int as tabbed from child`)).toEqual([{ n: 15_996, tabbed: 15_994 }]);
    expect(await rows('select note from child where id = 7')).toEqual([{ note: 'two\nlines' }]);
  }, 180_000);

  it('reads a refused unit of a JSON file again, each refusal keeping its line', async () => {
    // A blank first line, so lines are not places in the file; refusals while reading and by the database in one unit.
    const recs = [
      '',
      JSON.stringify({ id: 20_001, parent_id: 1, n: 'x' }),
      JSON.stringify({ id: 20_002, parent_id: 1, n: 2, note: 'kept as text' }),
      JSON.stringify({ id: 20_003, parent_id: 9, n: 3, note: 'no such parent' }),
      JSON.stringify({ id: 20_004, parent_id: 2, n: 4, note: 'tab\there' }),
      JSON.stringify({ id: 20_004, parent_id: 2, n: 5, note: 'same key' }),
      JSON.stringify({ id: 20_006, parent_id: 2, n: 6 }),
    ];
    const res = await uploadFile(inst.url, admin, 'rows.jsonl', recs.join('\n'));
    expect(res.status, res.text).toBe(201);
    const uploadId = res.body.data.upload.id as string;
    const mapping = { id: 'id', parent_id: 'parent_id', n: 'n', note: 'note' };
    const atomic = await runImport(inst, admin, { uploadId, connectionId, table: 'child', mapping, atomic: true });
    expect(atomic).toMatchObject({ state: 'failed', counts: { inserted: 0, refused: 3 } });
    expect((await report(atomic.id)).map(([line, reason]) => `${line} ${reason}`)).toEqual([
      '2 n: not a whole number',
      '4 foreign key violation (child_parent_id_fkey)',
      '6 duplicate key (child_pkey)',
    ]);
    expect(await rows('select count(*)::int as n from child where id > 20000')).toEqual([{ n: 0 }]);
    const dry = await runImport(inst, admin, { uploadId, connectionId, table: 'child', mapping, atomic: false, dryRun: true });
    expect(dry).toMatchObject({ state: 'succeeded', counts: { inserted: 3, refused: 3 } });
  });
});
