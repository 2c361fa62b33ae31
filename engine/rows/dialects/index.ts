import type { RowDialect } from '../dialect.js';
import type { RowsDialectName } from '../types.js';
import { mysqlRows } from './mysql.js';
import { postgresRows } from './postgres.js';
import { sqliteRows } from './sqlite.js';

const DIALECTS: Record<RowsDialectName, RowDialect> = { postgres: postgresRows, mysql: mysqlRows, sqlite: sqliteRows };

export function rowDialect(name: RowsDialectName): RowDialect {
  return DIALECTS[name];
}
