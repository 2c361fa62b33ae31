import type { DdlDialect, DdlDialectName } from '../types.js';
import { mysqlDdl } from './mysql.js';
import { postgresDdl } from './postgres.js';
import { sqliteDdl } from './sqlite.js';

const DIALECTS: Record<DdlDialectName, DdlDialect> = { postgres: postgresDdl, mysql: mysqlDdl, sqlite: sqliteDdl };

export function ddlDialect(name: DdlDialectName): DdlDialect {
  return DIALECTS[name];
}
