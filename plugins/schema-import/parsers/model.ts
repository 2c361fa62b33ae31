import type { Column, SchemaModel, Table } from '../../../engine/schema/model.js';
import { START, type Position, type Warnings } from './diagnostics.js';

export function newTable(schema: string | null, name: string, kind: 'table' | 'view' = 'table'): Table {
  return { schema, name, kind, columns: [], primaryKey: null, foreignKeys: [], uniques: [], indexes: [], checks: [], rowEstimate: null, comment: null };
}

export function newColumn(name: string, fields: Partial<Column> = {}): Column {
  return {
    name,
    type: 'other',
    nativeType: '',
    nullable: true,
    default: null,
    autoIncrement: false,
    generated: null,
    maxLength: null,
    precision: null,
    scale: null,
    enumValues: null,
    comment: null,
    ...fields,
  };
}

/** Where each table and constraint was declared, so later checks can point at it (one parse's lifetime). */
export type Origins = Map<object, Position>;

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Checks that every key names columns its table has and every foreign key a table the file
 * declares. These are warnings: a file may reference tables that live elsewhere.
 */
export function checkReferences(model: SchemaModel, warnings: Warnings, origins: Origins, fold: (name: string) => string = (n) => n): void {
  const tables = new Map<string, Table>();
  for (const t of model.tables) tables.set(`${t.schema ?? ''}.${fold(t.name)}`, t);
  const byName = new Map<string, Table>();
  for (const t of model.tables) if (!byName.has(fold(t.name))) byName.set(fold(t.name), t);
  for (const table of model.tables) {
    if (table.kind === 'view') continue;
    const has = new Set(table.columns.map((c) => fold(c.name)));
    const at = (o: object) => origins.get(o) ?? origins.get(table) ?? START;
    const missing = (cols: string[]) => cols.filter((c) => !has.has(fold(c)));
    const check = (o: object, cols: string[], what: string) => {
      const gone = missing(cols);
      if (gone.length)
        warnings.add(at(o), `${what} of table ${table.name} names column${gone.length > 1 ? 's' : ''} ${gone.join(', ')}, which the table does not have`);
    };
    if (table.primaryKey) check(table.primaryKey, table.primaryKey.columns, 'the primary key');
    for (const u of table.uniques) check(u, u.columns, `unique constraint ${u.name ?? ''}`.trim());
    // Expression keys (`lower(email)`) are not column names.
    for (const ix of table.indexes)
      check(
        ix,
        ix.columns.filter((k) => !k.includes('(')),
        `index ${ix.name ?? ''}`.trim(),
      );
    for (const fk of table.foreignKeys) {
      check(fk, fk.columns, `foreign key ${fk.name ?? ''}`.trim());
      if (fk.columns.length !== fk.referencedColumns.length) {
        warnings.add(
          at(fk),
          `foreign key ${fk.name ?? ''} of table ${table.name} has ${fk.columns.length} columns but references ${fk.referencedColumns.length}`.replace(
            '  ',
            ' ',
          ),
        );
      }
      const target =
        tables.get(`${fk.referencedSchema ?? table.schema ?? ''}.${fold(fk.referencedTable)}`) ??
        (fk.referencedSchema === null ? byName.get(fold(fk.referencedTable)) : undefined);
      if (!target) {
        warnings.add(at(fk), `table ${table.name} references table ${fk.referencedTable}, which this file does not declare`);
        continue;
      }
      const targetCols = new Set(target.columns.map((c) => fold(c.name)));
      const gone = fk.referencedColumns.filter((c) => !targetCols.has(fold(c)));
      if (gone.length && target.kind === 'table')
        warnings.add(at(fk), `table ${table.name} references ${target.name}(${gone.join(', ')}), which that table does not have`);
    }
  }
}

/**
 * A uniqueness as introspection lists it: in `uniques`, and as the unique index every dialect
 * builds for it in `indexes`.
 */
export function addUniqueness(table: Table, name: string | null, columns: string[], origins: Origins, at: Position): void {
  const unique = { name, columns };
  const index = { name, columns: [...columns], unique: true };
  table.uniques.push(unique);
  table.indexes.push(index);
  origins.set(unique, at);
  origins.set(index, at);
}

/** Drops duplicate uniques (same columns) so a column declared UNIQUE twice is listed once. */
export function dedupeUniques(table: Table): void {
  const seen: string[][] = [];
  table.uniques = table.uniques.filter((u) => {
    if (seen.some((s) => sameSet(s, u.columns))) return false;
    seen.push(u.columns);
    return true;
  });
}
