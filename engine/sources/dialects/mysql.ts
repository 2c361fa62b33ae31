import { CompiledQuery, Kysely, MysqlDialect, sql } from 'kysely';
import { mysqlHelpers } from '../../../kernel/meta/dialects/mysql.js';
import { errorCode, errorText, type FailureReason } from '../failure.js';
import type { ServerTarget, SourceDriver, SourceSettings } from '../types.js';
import { classifyNetwork, tlsOptions } from './network.js';

/**
 * Session settings for a new connection. The statement limit has two spellings: MariaDB's
 * max_statement_time (seconds, every statement) and MySQL's max_execution_time (milliseconds,
 * SELECT only), so the server's version decides.
 */
function sessionStatements(version: string, settings: SourceSettings): string[] {
  const ms = Math.max(1, Math.trunc(settings.statementTimeoutMs));
  const out = [/mariadb/i.test(version) ? `SET SESSION max_statement_time = ${ms / 1000}` : `SET SESSION max_execution_time = ${ms}`];
  // Blocks data changes; MySQL still lets DDL through (it commits implicitly), the API refuses that.
  if (settings.readOnly) out.push('SET SESSION TRANSACTION READ ONLY');
  return out;
}

// MySQL and MariaDB error numbers (the `errno` of a mysql2 error).
const ACCESS_DENIED = new Set([1045, 1698]); // ER_ACCESS_DENIED_ERROR, ER_ACCESS_DENIED_NO_PASSWORD_ERROR
const NOT_ALLOWED = new Set([1044, 1130, 1227]); // ER_DBACCESS_DENIED_ERROR, ER_HOST_NOT_PRIVILEGED, ER_SPECIFIC_ACCESS_DENIED
const BAD_DB = 1049;
const UNKNOWN_VARIABLE = 1193;
const BUSY = new Set([1040, 1203, 1129]); // too many connections (server, user), host blocked

export const mysqlSource: SourceDriver<ServerTarget> = {
  dialect: 'mysql',
  open(target, settings, onLost) {
    const ssl = tlsOptions(target);
    // mysql2 loads with the first MySQL pool (~15 MB a process without one need not pay).
    const pool = async () => {
      const { createPool } = await import('mysql2');
      const pool = createPool({
        host: target.host,
        port: target.port,
        database: target.database,
        ...(target.user ? { user: target.user } : {}),
        ...(target.password ? { password: target.password } : {}),
        ...(ssl ? { ssl } : {}),
        connectionLimit: settings.poolSize,
        connectTimeout: settings.connectTimeoutMs,
        idleTimeout: settings.idleTimeoutMs,
        maxIdle: 0,
        enableKeepAlive: true,
        charset: 'utf8mb4',
        timezone: 'Z',
        // BIGINT and DECIMAL as strings, as pg gives them: no silent loss beyond 2^53.
        supportBigNumbers: true,
        bigNumberStrings: true,
      });
      pool.on('connection', (conn) => conn.on('error', onLost));
      return pool;
    };
    return new Kysely({
      dialect: new MysqlDialect({
        pool,
        async onCreateConnection(conn) {
          const res = await conn.executeQuery<{ v: string }>(CompiledQuery.raw('select version() as v'));
          for (const stmt of sessionStatements(String(res.rows[0]?.v ?? ''), settings)) {
            // A server too old for the variable (MySQL before 5.7.8) runs without the limit rather than not at all.
            await conn.executeQuery(CompiledQuery.raw(stmt)).catch((err: { errno?: unknown }) => {
              if (err?.errno !== UNKNOWN_VARIABLE) throw err;
            });
          }
        },
      }),
    });
  },
  async serverVersion(db) {
    const res = await sql<{ v: string }>`select version() as v`.execute(db);
    return String(res.rows[0]?.v ?? '');
  },
  classify(err) {
    const errno = (err as { errno?: unknown })?.errno;
    const code = errorCode(err) ?? '';
    const text = errorText(err);
    if (typeof errno === 'number' && (err as { sqlState?: unknown }).sqlState !== undefined) {
      if (ACCESS_DENIED.has(errno)) return 'auth-failed';
      if (NOT_ALLOWED.has(errno)) return 'permission-denied';
      if (errno === BAD_DB) return 'database-not-found';
      if (BUSY.has(errno)) return 'unknown';
    }
    if (code === 'ER_SECURE_TRANSPORT_REQUIRED' || /secure transport|SSL connection is required|requires? SSL/i.test(text)) return 'tls-required';
    if (code === 'HANDSHAKE_NO_SSL_SUPPORT' || /server does not support secure connection/i.test(text)) return 'tls-failed';
    if (code === 'ETIMEDOUT') return 'timeout';
    const net = classifyNetwork(err);
    if (net) return net;
    return mysqlHelpers.isUnreachable(err) ? 'unreachable' : (null as FailureReason | null);
  },
};
