import { describe, expect, it } from 'vitest';
import { col, tbl } from '../testing.js';
import { MAX_IDENTIFIER } from './names.js';
import { planTables, summarisePlan } from './plan.js';
import { declare, declared, NOTES_V1, NOTES_V2, TAGS } from './testing.js';

/** What introspection would answer once `NOTES_V1` is installed (types do not matter to the plan). */
const notesOnConnection = tbl('my_addon__notes', [col('id', 'bigint'), col('title'), col('body', 'text')]);

describe('planTables', () => {
  it('creates every table of a fresh install, with its indexes and primary key', () => {
    const plan = planTables(declared('my-addon', [NOTES_V2, TAGS]), [tbl('other', [col('id')])]);
    expect(plan).toMatchObject({ destructive: false, warnings: [], conflicts: [], refusals: [] });
    expect(plan.tables.map((t) => [t.name, t.action, t.primaryKey])).toEqual([
      ['my_addon__notes', 'create', ['id']],
      ['my_addon__tags', 'create', ['note_id', 'tag']],
    ]);
    expect(plan.tables[0]?.indexes).toEqual([
      { name: expect.stringMatching(/^my_addon__notes_pinned_title_ix_[0-9a-f]{8}$/), columns: ['pinned', 'title'], unique: false, action: 'add' },
    ]);
  });

  it('is deterministic (the add-ons plugin hashes it)', () => {
    const a = planTables(declared('my-addon', [NOTES_V2, TAGS]), [notesOnConnection], [NOTES_V1]);
    const b = planTables(declared('my-addon', [NOTES_V2, TAGS]), [notesOnConnection], [NOTES_V1]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('a table that exists without being the previous version’s is a conflict, views included', () => {
    const plan = planTables(declared('my-addon', [NOTES_V1, TAGS]), [notesOnConnection, tbl('my_addon__tags', [col('x')], { kind: 'view' })], [NOTES_V1]);
    expect(plan.conflicts).toEqual([{ table: 'my_addon__tags', reason: 'exists' }]);
    expect(planTables(declared('my-addon', [NOTES_V1]), [notesOnConnection]).conflicts).toEqual([{ table: 'my_addon__notes', reason: 'exists' }]);
  });

  it('a column made unique gets a unique index; the primary key does not', () => {
    const t = declare({
      name: 'u',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', unique: true },
        { name: 'email', type: 'string', unique: true },
      ],
      indexes: [{ columns: ['email'], unique: true }],
    });
    expect(planTables(declared('k', [t]), []).tables[0]?.indexes.map((i) => [i.columns, i.unique])).toEqual([[['email'], true]]);
  });

  it('a table the previous version declared and this one does not is dropped: destructive', () => {
    const plan = planTables(declared('my-addon', [NOTES_V1]), [notesOnConnection, tbl('my_addon__tags', [col('note_id'), col('tag')])], [NOTES_V1, TAGS]);
    expect(plan.destructive).toBe(true);
    expect(plan.tables.find((t) => t.name === 'my_addon__tags')?.action).toBe('drop');
    // With no table declared at all, the caller names the physical table.
    const none = planTables([], [tbl('my_addon__tags', [col('tag')])], [TAGS], { physicalName: (t) => `my_addon__${t}` });
    expect(none.tables.map((t) => [t.name, t.action])).toEqual([['my_addon__tags', 'drop']]);
  });

  it('retyping covers length, precision and enum values', () => {
    const changed = (c: object) => declare({ ...NOTES_V1, columns: [...NOTES_V1.columns.filter((x) => x.name !== 'body'), { name: 'body', ...c }] });
    const plan = (v: ReturnType<typeof changed>, prev: ReturnType<typeof changed>) =>
      planTables(declared('my-addon', [v]), [notesOnConnection], [prev]).tables[0]?.columns.find((c) => c.name === 'body')?.action;
    expect(plan(changed({ type: 'string', maxLength: 10 }), changed({ type: 'string' }))).toBe('retype');
    expect(plan(changed({ type: 'string', maxLength: 255 }), changed({ type: 'string' }))).toBe('keep');
    expect(plan(changed({ type: 'decimal', precision: 12, scale: 3 }), changed({ type: 'decimal' }))).toBe('retype');
    expect(plan(changed({ type: 'enum', values: ['a', 'b'] }), changed({ type: 'enum', values: ['a'] }))).toBe('retype');
    expect(plan(changed({ type: 'text', nullable: false, default: '' }), changed({ type: 'text' }))).toBe('keep');
  });

  it('refuses a primary key change, a NOT NULL column without default, and a name too long', () => {
    const pk = declare({ ...TAGS, primaryKey: ['tag'] });
    const tagsOnConnection = tbl('my_addon__tags', [col('note_id', 'bigint'), col('tag')]);
    expect(planTables(declared('my-addon', [pk]), [tagsOnConnection], [TAGS]).refusals).toEqual([expect.stringContaining('primary key')]);
    const nn = declare({ ...NOTES_V1, columns: [...NOTES_V1.columns, { name: 'n', type: 'integer', nullable: false }] });
    expect(planTables(declared('my-addon', [nn]), [notesOnConnection], [NOTES_V1]).refusals).toEqual([expect.stringContaining('my_addon__notes.n')]);
    // On a table being created the same column is fine.
    expect(planTables(declared('my-addon', [nn]), []).refusals).toEqual([]);
    const longKey = 'k'.repeat(40);
    const long = declare({ ...NOTES_V1, name: 'n'.repeat(30) });
    expect(planTables(declared(longKey, [long]), []).refusals).toEqual([expect.stringContaining(`longer than ${MAX_IDENTIFIER}`)]);
  });

  it('warns about what an upgrade leaves alone', () => {
    const v2 = declare({ ...NOTES_V2, indexes: [] });
    const onConnection = tbl('my_addon__notes', [...notesOnConnection.columns, col('pinned', 'boolean'), col('tag', 'enum'), col('extra')]);
    const loosened = declare({ ...v2, columns: v2.columns.map((c) => (c.name === 'title' ? { ...c, nullable: true } : c)) });
    const plan = planTables(declared('my-addon', [loosened]), [onConnection], [NOTES_V2]);
    expect(plan.tables[0]?.action).toBe('keep');
    expect(plan.warnings).toEqual([expect.stringContaining('my_addon__notes.title'), expect.stringContaining('Index on my_addon__notes (pinned, title)')]);
  });
});

describe('summarisePlan', () => {
  it('shows what D24 shows and nothing of the declarations', () => {
    const s = summarisePlan(planTables(declared('my-addon', [NOTES_V2]), [notesOnConnection], [NOTES_V1]));
    expect(s).toEqual({
      tables: [
        {
          name: 'my_addon__notes',
          action: 'alter',
          columns: [
            { name: 'id', type: 'bigint', action: 'keep' },
            { name: 'title', type: 'string', action: 'keep' },
            { name: 'body', type: 'text', action: 'keep' },
            { name: 'pinned', type: 'boolean', action: 'add' },
            { name: 'tag', type: 'enum', action: 'add' },
          ],
          indexes: [{ columns: ['pinned', 'title'], unique: false, action: 'add' }],
        },
      ],
      destructive: false,
      warnings: [],
      refusals: [],
    });
  });
});
