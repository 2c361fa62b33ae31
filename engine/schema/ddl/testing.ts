/** Declarations shared by the DDL tests (and usable by the add-ons plugin's tests). */
import { tableDeclarationSchema, type TableDeclaration } from '../../../addons-sdk/src/manifest/declarations.js';
import { physicalTableName } from '../../../addons-sdk/src/manifest/addon.js';
import type { DeclaredTable } from './types.js';

export const declare = (t: unknown): TableDeclaration => tableDeclarationSchema.parse(t);

export const declared = (key: string, tables: TableDeclaration[]): DeclaredTable[] =>
  tables.map((table) => ({ physicalName: physicalTableName(key, table.name), table }));

/** One column of every declarable type, with defaults of each kind, a unique column and an index. */
export const EVERYTHING = declare({
  name: 'everything',
  primaryKey: ['id'],
  columns: [
    { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
    { name: 'c_string', type: 'string', maxLength: 80, default: "it's", unique: true },
    { name: 'c_text', type: 'text' },
    { name: 'c_integer', type: 'integer', nullable: false, default: 0 },
    { name: 'c_bigint', type: 'bigint', default: 9007199254740991 },
    { name: 'c_decimal', type: 'decimal', precision: 10, scale: 3, default: 1.5 },
    { name: 'c_float', type: 'float' },
    { name: 'c_boolean', type: 'boolean', nullable: false, default: false },
    { name: 'c_date', type: 'date', default: 'now()' },
    { name: 'c_datetime', type: 'datetime', nullable: false, default: 'now()' },
    { name: 'c_time', type: 'time', default: 'now()' },
    { name: 'c_json', type: 'json' },
    { name: 'c_uuid', type: 'uuid' },
    { name: 'c_binary', type: 'binary' },
    { name: 'c_enum', type: 'enum', values: ['draft', "it's"], default: 'draft' },
    { name: 'order', type: 'string' },
  ],
  indexes: [{ columns: ['c_integer', 'c_date'] }],
});

export const NOTES_V1 = declare({
  name: 'notes',
  primaryKey: ['id'],
  columns: [
    { name: 'id', type: 'bigint', autoIncrement: true, nullable: false },
    { name: 'title', type: 'string', nullable: false },
    { name: 'body', type: 'text' },
  ],
});

/** v1 plus a NOT NULL column with a default, a nullable one and an index. */
export const NOTES_V2 = declare({
  ...NOTES_V1,
  columns: [...NOTES_V1.columns, { name: 'pinned', type: 'boolean', nullable: false, default: false }, { name: 'tag', type: 'enum', values: ['a', 'b'] }],
  indexes: [{ columns: ['pinned', 'title'] }],
});

export const TAGS = declare({
  name: 'tags',
  primaryKey: ['note_id', 'tag'],
  columns: [
    { name: 'note_id', type: 'bigint', nullable: false },
    { name: 'tag', type: 'string', maxLength: 40, nullable: false },
  ],
});
