import { isAbsolute } from 'node:path';
import { TLS_MODES, type SourceDialect, type SourceTarget, type TlsMode } from './types.js';

export type ParsedUrl = { ok: true; target: SourceTarget } | { ok: false; message: string };

export const MAX_URL_LENGTH = 4096;

const SERVER = {
  postgres: { schemes: ['postgres:', 'postgresql:'], port: 5432, example: 'postgres://user:password@host:5432/database' },
  mysql: { schemes: ['mysql:', 'mariadb:'], port: 3306, example: 'mysql://user:password@host:3306/database' },
} as const;

const fail = (message: string): ParsedUrl => ({ ok: false, message });

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/**
 * Reads a connection URL into a target. Our own grammar rather than the drivers': a driver
 * lets query parameters override the pool's limits or read certificate files from this
 * server's disk, so only `sslmode` is accepted. Messages never repeat the URL.
 */
export function parseSourceUrl(dialect: SourceDialect, raw: string): ParsedUrl {
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) return fail(`The URL must be 1 to ${MAX_URL_LENGTH} characters.`);
  if (raw.includes('\u0000')) return fail('The URL contains a NUL character.');
  return dialect === 'sqlite' ? parseSqlite(raw) : parseServer(dialect, raw);
}

function parseSqlite(raw: string): ParsedUrl {
  const m = /^sqlite:(.*)$/i.exec(raw);
  if (!m) return fail('A SQLite URL looks like sqlite:/absolute/path/to/file.db');
  // `sqlite:///abs/path` is the same file as `sqlite:/abs/path`.
  const file = m[1]!.startsWith('///') ? m[1]!.slice(2) : m[1]!;
  if (file.startsWith('//')) return fail('A SQLite URL names a file on this server, not a host: sqlite:/absolute/path/to/file.db');
  if (!isAbsolute(file)) return fail('The SQLite file path must be absolute: sqlite:/absolute/path/to/file.db');
  if (file === '/' || file.endsWith('/')) return fail('The SQLite URL must name a file, not a directory.');
  return { ok: true, target: { dialect: 'sqlite', file } };
}

function parseServer(dialect: 'postgres' | 'mysql', raw: string): ParsedUrl {
  const spec = SERVER[dialect];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(`The URL cannot be read; it looks like ${spec.example}`);
  }
  if (!(spec.schemes as readonly string[]).includes(url.protocol.toLowerCase()))
    return fail(`A ${dialect} URL starts with ${spec.schemes.map((s) => `${s}//`).join(' or ')}`);
  const host = url.hostname.replace(/^\[(.+)\]$/, '$1');
  if (!host) return fail(`The URL names no host; it looks like ${spec.example}`);
  if (host.length > 255) return fail('The host name is longer than 255 characters.');
  let port: number = spec.port;
  if (url.port !== '') {
    port = Number(url.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return fail('The port must be 1 to 65535.');
  }
  const path = url.pathname.replace(/^\//, '');
  const database = decode(path);
  if (!database) return fail(`The URL must name the database after the host: ${spec.example}`);
  if (database.includes('/')) return fail('The database name cannot contain a slash.');
  const user = decode(url.username);
  const password = decode(url.password);
  if (user === null || password === null) return fail('The user name or password has a broken %-escape.');
  if (user.length > 255) return fail('The user name is longer than 255 characters.');
  if (url.hash) return fail('The URL cannot have a #fragment.');
  let tls: TlsMode = 'disable';
  for (const [key, value] of url.searchParams) {
    if (key !== 'sslmode') return fail(`The URL parameter "${key.slice(0, 40)}" is not supported; the only one is sslmode.`);
    if (!(TLS_MODES as readonly string[]).includes(value)) return fail(`sslmode must be one of ${TLS_MODES.join(', ')}.`);
    tls = value as TlsMode;
  }
  return { ok: true, target: { dialect, host, port, database, user: user || null, password: password || null, tls } };
}

/** What may be shown about a target: everything but the password. */
export function describeTarget(target: SourceTarget): { host: string | null; port: number | null; database: string; user: string | null; tls: TlsMode | null } {
  if (target.dialect === 'sqlite') return { host: null, port: null, database: target.file, user: null, tls: null };
  return { host: target.host, port: target.port, database: target.database, user: target.user, tls: target.tls };
}
