import { describe, expect, it } from 'vitest';
import { col, tbl } from '../testing.js';
import { withInstanceColumn } from './instance.js';
import { planTables } from './plan.js';
import { declared, NOTES_V1 } from './testing.js';
import type { DdlColumn } from './types.js';

/** As the add-ons plugin passes its instance column (D28). */
const INSTANCE: DdlColumn = { name: 'svc_instance', type: 'string', maxLength: 40, nullable: false, default: 'default', autoIncrement: false, unique: false };

describe('withInstanceColumn (D28)', () => {
  it('adds the column it is given and an index on it; once', () => {
    const t = withInstanceColumn(NOTES_V1, INSTANCE);
    expect(t.columns.at(-1)).toEqual(INSTANCE);
    expect(t.indexes).toContainEqual({ columns: ['svc_instance'], unique: false });
    expect(withInstanceColumn(t, INSTANCE)).toEqual(t);
  });

  it('is an additive change for a table installed before instances existed', () => {
    const onConnection = tbl('my_addon__notes', [col('id', 'bigint'), col('title'), col('body', 'text')]);
    const plan = planTables(
      declared('my-addon', [NOTES_V1]).map((d) => ({ ...d, table: withInstanceColumn(d.table, INSTANCE) })),
      [onConnection],
      [withInstanceColumn(NOTES_V1, INSTANCE)],
    );
    expect(plan).toMatchObject({ destructive: false, conflicts: [], refusals: [] });
    expect(plan.tables[0]?.action).toBe('alter');
    expect(plan.tables[0]?.columns.filter((c) => c.action !== 'keep')).toEqual([expect.objectContaining({ name: 'svc_instance', action: 'add' })]);
  });
});
