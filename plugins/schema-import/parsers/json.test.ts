import { describe, expect, it } from 'vitest';
import type { SchemaModel } from '../../../engine/schema/model.js';
import { SchemaParseError } from './diagnostics.js';
import { parseJsonModel } from './json.js';
import { newColumn, newTable } from './model.js';

const model: SchemaModel = {
  dialect: 'postgres',
  tables: [
    {
      ...newTable('public', 'author'),
      columns: [newColumn('id', { type: 'integer', nativeType: 'integer', nullable: false, autoIncrement: true })],
      primaryKey: { name: 'author_pkey', columns: ['id'] },
    },
    {
      ...newTable('public', 'post'),
      columns: [
        newColumn('id', { type: 'integer', nativeType: 'integer', nullable: false }),
        newColumn('author_id', { type: 'integer', nativeType: 'integer' }),
      ],
      foreignKeys: [
        {
          name: null,
          columns: ['author_id'],
          referencedSchema: 'public',
          referencedTable: 'author',
          referencedColumns: ['id'],
          onDelete: 'cascade',
          onUpdate: 'no action',
        },
      ],
    },
  ],
  enums: [{ schema: 'public', name: 'mood', values: ['ok'] }],
};

function failure(source: string): SchemaParseError {
  try {
    parseJsonModel(source);
  } catch (err) {
    if (err instanceof SchemaParseError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('the JSON model', () => {
  it('reads back what it is', () => {
    const out = parseJsonModel(JSON.stringify(model, null, 2));
    expect(out).toEqual({ model, warnings: [] });
  });

  it('points a syntax error at its line and column', () => {
    const source = '{\n  "dialect": "postgres",\n  "tables": [,]\n}';
    const err = failure(source);
    expect([err.line, err.column, err.detail]).toEqual([3, 14, 'unexpected ","']);
    expect(failure('{"dialect": null, "tables": []')).toMatchObject({ line: 1, column: 31, detail: 'unexpected end of the JSON text' });
  });

  it('points a schema violation at the offending value, naming its path', () => {
    const bad = structuredClone(model) as any;
    bad.tables[1].columns[1].type = 'varchar';
    const source = JSON.stringify(bad, null, 2);
    const err = failure(source);
    const lines = source.split('\n');
    const line = lines.findIndex((l) => l.includes('"varchar"')) + 1;
    expect(err.line).toBe(line);
    expect(err.column).toBe(lines[line - 1]!.indexOf('"varchar"') + 1);
    expect(err.detail).toMatch(/^tables\[1\]\.columns\[1\]\.type: Invalid option/);
  });

  it('refuses unknown keys (the model is strict) and points at the object holding them', () => {
    const err = failure('{"dialect":"sqlite","tables":[],"enums":[],"extra":1}');
    expect(err.line).toBe(1);
    expect(err.column).toBe(1);
    expect(err.detail).toMatch(/extra/);
  });

  it('warns about keys naming columns or tables that do not exist', () => {
    const bad = structuredClone(model);
    bad.tables[1]!.foreignKeys[0]!.referencedTable = 'writer';
    bad.tables[0]!.primaryKey = { name: null, columns: ['uuid'] };
    const source = JSON.stringify(bad, null, 2);
    const { warnings } = parseJsonModel(source);
    const lineOf = (needle: string) => source.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(warnings).toEqual([
      { line: lineOf('"tables"') + 1, column: 5, message: 'the primary key of table author names column uuid, which the table does not have' },
      { line: lineOf('"name": "post"') - 2, column: 5, message: 'table post references table writer, which this file does not declare' },
    ]);
  });
});
