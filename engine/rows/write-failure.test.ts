import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTempDatabase } from '../../test/fixtures/schema/open.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { rowDialect } from './dialects/index.js';
import { col, idCol, tbl } from './testing.js';
import type { RowsDialectName } from './types.js';
import { insertRow } from './write.js';

const dialects: RowsDialectName[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const table = tbl('people', [idCol(), col('name', 'string', { nullable: false }), col('note')]);
const [id, name, note] = table.columns as [(typeof table.columns)[0], (typeof table.columns)[0], (typeof table.columns)[0]];

describe.each(dialects)('write refusals name the column on %s', (dialect) => {
  let db: Kysely<any>;
  let dispose: (() => Promise<void>) | undefined;
  const d = rowDialect(dialect);

  beforeAll(async () => {
    ({ db, dispose } = await openTempDatabase(dialect));
    await sql`create table people (id integer not null primary key, name varchar(20) not null, note varchar(20))`.execute(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const failure = async (values: Array<readonly [typeof id, string | number | null]>) => {
    const err = await insertRow(db, d, table, values, table.columns).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    return d.writeFailure(err);
  };

  it('a NOT NULL column left out (MariaDB 1364, "field doesn\'t have a default value")', async () => {
    expect(
      await failure([
        [id, 1],
        [note, 'x'],
      ]),
    ).toEqual({ reason: 'not-null', constraint: 'name' });
  });

  it('a NOT NULL column given NULL', async () => {
    expect(
      await failure([
        [id, 2],
        [name, null],
      ]),
    ).toEqual({ reason: 'not-null', constraint: 'name' });
  });
});
