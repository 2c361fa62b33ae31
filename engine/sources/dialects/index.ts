import type { SourceDialect, SourceDriver, SourceTarget } from '../types.js';
import { mysqlSource } from './mysql.js';
import { postgresSource } from './postgres.js';
import { sqliteSource } from './sqlite.js';

const DRIVERS: Record<SourceDialect, SourceDriver> = {
  postgres: postgresSource as SourceDriver,
  mysql: mysqlSource as SourceDriver,
  sqlite: sqliteSource as SourceDriver,
};

export function driverFor(target: SourceTarget | SourceDialect): SourceDriver {
  return DRIVERS[typeof target === 'string' ? target : target.dialect];
}
