import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { postgresHelpers } from '../../../kernel/meta/dialects/postgres.js';
import { errorCode, errorText, type FailureReason } from '../failure.js';
import type { ServerTarget, SourceDriver, SourceSettings } from '../types.js';
import { pgIdentifier, rememberPgPool } from '../pg-client.js';
import { classifyNetwork, tlsOptions } from './network.js';

/** A value for the startup `options` (`-c name=value`): spaces and backslashes are escaped there. */
function startupValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/ /g, '\\ ');
}

function startupOptions(settings: SourceSettings): string | undefined {
  const opts: string[] = [];
  if (settings.readOnly) opts.push('-c default_transaction_read_only=on');
  if (settings.defaultSchema) opts.push(`-c search_path=${startupValue(pgIdentifier(settings.defaultSchema))}`);
  return opts.length ? opts.join(' ') : undefined;
}

export const postgresSource: SourceDriver<ServerTarget> = {
  dialect: 'postgres',
  open(target, settings, onLost) {
    // pg loads with the first PostgreSQL pool; the pool is made once, when kysely or a bulk path first asks.
    let made: Promise<pg.Pool> | null = null;
    const pool = () =>
      (made ??= import('pg').then(({ default: driver }) => {
        const pool = new driver.Pool({
          host: target.host,
          port: target.port,
          database: target.database,
          ...(target.user ? { user: target.user } : {}),
          // A function, so pg never falls back to PGPASSWORD or this server's ~/.pgpass for a
          // host the operator typed in.
          password: async () => target.password ?? '',
          ssl: tlsOptions(target),
          max: settings.poolSize,
          connectionTimeoutMillis: settings.connectTimeoutMs,
          idleTimeoutMillis: settings.idleTimeoutMs,
          allowExitOnIdle: true,
          // Session settings travel in the startup packet, so they hold before the first query.
          statement_timeout: settings.statementTimeoutMs,
          lock_timeout: settings.statementTimeoutMs,
          idle_in_transaction_session_timeout: Math.max(settings.statementTimeoutMs * 2, 60_000),
          options: startupOptions(settings),
          application_name: 'svc-admin',
        });
        // A client losing its server emits 'error'; unheard, that crashes the process (see the meta store).
        pool.on('connect', (client) => client.on('error', onLost));
        pool.on('error', onLost);
        return pool;
      }));
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    rememberPgPool(db, pool);
    return db;
  },
  async serverVersion(db) {
    const res = await sql<{ server_version: string }>`show server_version`.execute(db);
    return String(res.rows[0]?.server_version ?? '');
  },
  classify(err) {
    const code = errorCode(err);
    const text = errorText(err);
    if (code === '28P01') return 'auth-failed';
    if (code === '28000') {
      // pg_hba.conf refuses plain connections from this host: "no pg_hba.conf entry … no encryption" / "SSL off".
      return /SSL off|no encryption/i.test(text) ? 'tls-required' : 'auth-failed';
    }
    if (code === '3D000') return 'database-not-found';
    if (code === '42501' && /database/i.test(text)) return 'permission-denied';
    if (code === '53300' || code === '53400') return 'unknown'; // too many connections: the server's own words say so
    if (/server does not support SSL/i.test(text)) return 'tls-failed';
    // Something answered, but not in PostgreSQL's protocol (a MySQL or HTTP server on that port).
    if (/^Received unexpected .* from backend/i.test(text)) return 'not-a-database';
    if (/timeout expired|connection timeout|timeout exceeded when trying to connect/i.test(text)) return 'timeout';
    const net = classifyNetwork(err);
    if (net) return net;
    return postgresHelpers.isUnreachable(err) ? 'unreachable' : (null as FailureReason | null);
  },
};
