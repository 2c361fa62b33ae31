import { describe, expect, it } from 'vitest';
import { mysqlSource } from './dialects/mysql.js';
import { postgresSource } from './dialects/postgres.js';
import { sqliteSource } from './dialects/sqlite.js';
import { scrub, SourceFailure, toFailure } from './failure.js';

const err = (props: Record<string, unknown>, message = 'boom') => Object.assign(new Error(message), props);

describe('classifying connection failures', () => {
  it('reads PostgreSQL errors', () => {
    const c = (e: unknown) => postgresSource.classify(e);
    expect(c(err({ code: '28P01' }, 'password authentication failed for user "app"'))).toBe('auth-failed');
    expect(c(err({ code: '28000' }, 'role "x" does not exist'))).toBe('auth-failed');
    expect(c(err({ code: '28000' }, 'no pg_hba.conf entry for host "10.0.0.1", user "app", database "shop", no encryption'))).toBe('tls-required');
    expect(c(err({ code: '28000' }, 'no pg_hba.conf entry for host "10.0.0.1", user "app", database "shop", SSL off'))).toBe('tls-required');
    expect(c(err({ code: '3D000' }, 'database "shop" does not exist'))).toBe('database-not-found');
    expect(c(err({ code: '42501' }, 'permission denied for database shop'))).toBe('permission-denied');
    expect(c(err({ code: '53300' }, 'sorry, too many clients already'))).toBe('unknown');
    expect(c(err({ code: 'ECONNREFUSED' }))).toBe('unreachable');
    expect(c(err({ code: 'ENOTFOUND' }))).toBe('unreachable');
    expect(c(err({ code: 'ETIMEDOUT' }))).toBe('timeout');
    expect(c(err({}, 'timeout exceeded when trying to connect'))).toBe('timeout');
    expect(c(err({}, 'Connection terminated due to connection timeout'))).toBe('timeout');
    expect(c(err({}, 'Connection terminated unexpectedly'))).toBe('unreachable');
    expect(c(err({ code: '57P01' }, 'terminating connection due to administrator command'))).toBe('unreachable');
    expect(c(err({}, 'The server does not support SSL connections'))).toBe('tls-failed');
    expect(c(err({ code: 'SELF_SIGNED_CERT_IN_CHAIN' }))).toBe('tls-failed');
    expect(c(err({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))).toBe('tls-failed');
    expect(c(err({}, 'Received unexpected copyData message from backend'))).toBe('not-a-database');
    // Ordinary query errors are not about reaching the database.
    expect(c(err({ code: '42P01' }, 'relation "x" does not exist'))).toBeNull();
    expect(c(err({ code: '57014' }, 'canceling statement due to statement timeout'))).toBeNull();
    expect(c(err({ code: '25006' }, 'cannot execute INSERT in a read-only transaction'))).toBeNull();
  });

  it('reads MySQL and MariaDB errors', () => {
    const c = (e: unknown) => mysqlSource.classify(e);
    const my = (errno: number, code: string) => err({ errno, code, sqlState: 'HY000', fatal: true });
    expect(c(my(1045, 'ER_ACCESS_DENIED_ERROR'))).toBe('auth-failed');
    expect(c(my(1044, 'ER_DBACCESS_DENIED_ERROR'))).toBe('permission-denied');
    expect(c(my(1130, 'ER_HOST_NOT_PRIVILEGED'))).toBe('permission-denied');
    expect(c(my(1049, 'ER_BAD_DB_ERROR'))).toBe('database-not-found');
    expect(c(my(1040, 'ER_CON_COUNT_ERROR'))).toBe('unknown');
    expect(c(my(3159, 'ER_SECURE_TRANSPORT_REQUIRED'))).toBe('tls-required');
    expect(c(err({ code: 'HANDSHAKE_NO_SSL_SUPPORT' }))).toBe('tls-failed');
    expect(c(err({}, 'Server does not support secure connection'))).toBe('tls-failed');
    expect(c(err({ code: 'ETIMEDOUT' }))).toBe('timeout');
    expect(c(err({ code: 'ECONNREFUSED' }))).toBe('unreachable');
    expect(c(err({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe('unreachable');
    expect(c(err({ errno: 1146, code: 'ER_NO_SUCH_TABLE', sqlState: '42S02' }))).toBeNull();
    expect(c(err({ errno: 1969, code: 'ER_STATEMENT_TIMEOUT', sqlState: '70100' }))).toBeNull();
  });

  it('reads SQLite errors', () => {
    const c = (e: unknown) => sqliteSource.classify(e);
    expect(c(err({ code: 'SQLITE_NOTADB' }))).toBe('not-a-database');
    expect(c(err({ code: 'SQLITE_CORRUPT' }))).toBe('not-a-database');
    expect(c(err({ code: 'SQLITE_CANTOPEN' }))).toBe('file-not-found');
    expect(c(err({ code: 'SQLITE_IOERR_SHORT_READ' }))).toBe('file-not-found');
    expect(c(err({ code: 'SQLITE_PERM' }))).toBe('permission-denied');
    expect(c(new SourceFailure('file-not-found'))).toBe('file-not-found');
    expect(c(err({ code: 'SQLITE_BUSY' }))).toBeNull();
    expect(c(err({ code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBeNull();
  });
});

describe('failure messages', () => {
  it('keep secrets and URLs out of a driver message', () => {
    const text = scrub('could not use postgres://app:hunter22@db/shop, password hunter22 refused\nnext line', ['hunter22']);
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain('postgres://');
    expect(text).not.toContain('\n');
  });

  it('use fixed words for known reasons, and say which address failed for network errors', () => {
    expect(toFailure('auth-failed', err({ code: '28P01' }, 'password authentication failed: hunter22'), ['hunter22']).message).toBe(
      'The database refused the user name or password.',
    );
    expect(toFailure('unreachable', err({ code: 'ENOTFOUND' }), []).message).toMatch(/could not be resolved/);
    const unknown = toFailure('unknown', err({ code: '53300' }, 'sorry, too many clients already (pw hunter22)'), ['hunter22']);
    expect(unknown.reason).toBe('unknown');
    expect(unknown.message).toContain('too many clients');
    expect(unknown.message).not.toContain('hunter22');
  });
});
