import type { Dialect } from '../../meta/types.js';
import { claimMysql } from './mysql.js';
import { claimPostgres } from './postgres.js';
import { claimSqlite } from './sqlite.js';
import type { Claimer } from './types.js';

export const claimers: Record<Dialect, Claimer> = { postgres: claimPostgres, mysql: claimMysql, sqlite: claimSqlite };
