import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `host[:port]` as sent, split; the IPv6 brackets dropped. Null when it cannot be read. */
function splitHost(value: string): { name: string; port: string | null } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!m) return null;
  // `name.` is the fully qualified spelling of `name` (issue 26 point 27): the same name.
  return {
    name: m[1]!
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, ''),
    port: m[2] ?? null,
  };
}

const unmapped = (address: string | undefined): string => (address ?? '').toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');

/**
 * Whether the request's `Host` header names this instance, not merely reaches it (issue 11: a
 * reset link followed a foreign Host; DNS rebinding lets a foreign page reach a loopback
 * server under its own name). Ours are: SVC_BASE_URL's host and port; and, on the port the
 * connection came in on, a loopback name, SVC_HOST (unless a wildcard) or the local address
 * the connection came in on. The raw header is read, not X-Forwarded-Host: behind a proxy the
 * operator names the instance with SVC_BASE_URL.
 */
export function isOwnHost(request: FastifyRequest, config: Config): boolean {
  const header = request.headers.host;
  if (!header) return false;
  const host = splitHost(header);
  if (!host) return false;
  if (config.baseUrl) {
    const base = new URL(config.baseUrl);
    const basePort = base.port || (base.protocol === 'https:' ? '443' : '80');
    if (splitHost(base.host)?.name === host.name && (host.port ?? (base.protocol === 'https:' ? '443' : '80')) === basePort) return true;
  }
  const socket = request.raw.socket;
  if (host.port !== null ? Number(host.port) !== socket.localPort : socket.localPort !== 80) return false;
  if (LOOPBACK_NAMES.has(host.name)) return true;
  const listen = config.host.toLowerCase().replace(/^\[|\]$/g, '');
  if (!WILDCARDS.has(listen) && unmapped(listen) === unmapped(host.name)) return true;
  return unmapped(socket.localAddress) === unmapped(host.name);
}

/**
 * Whether a host name (no port) is one the instance answers to as itself: SVC_BASE_URL's host, a
 * loopback name or SVC_HOST. A name mapped to an add-on's surface (D28) must be none of them, or
 * the mapping would take the dashboard away from its own address.
 */
export function isOwnName(name: string, config: Config): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (LOOPBACK_NAMES.has(n)) return true;
  if (config.baseUrl && splitHost(new URL(config.baseUrl).host)?.name === n) return true;
  const listen = config.host.toLowerCase().replace(/^\[|\]$/g, '');
  return !WILDCARDS.has(listen) && listen === n;
}

/** POST /setup/super-admin and the like: refuses a request addressed to a name that is not ours (421 HOST_NOT_ALLOWED). */
export function assertOwnHost(request: FastifyRequest, config: Config): void {
  if (!isOwnHost(request, config)) throw new AppError('HOST_NOT_ALLOWED', { params: { host: request.headers.host ?? null } });
}

/**
 * Where e-mailed links (password reset, invitations) point: SVC_BASE_URL; else, for a split
 * deployment, the dashboard's origin when the request's Origin is one the operator listed in
 * SVC_CORS_ORIGINS; else the request's own origin when its Host is ours (loopback, the listen
 * address). Anything else would mail a live token to a host the caller chose: 409
 * BASE_URL_REQUIRED, before anything is done.
 */
export function linkBase(request: FastifyRequest, config: Config): string {
  if (config.baseUrl) return config.baseUrl;
  const origin = request.headers.origin;
  if (origin && config.corsOrigins.includes(origin)) return origin;
  if (isOwnHost(request, config)) return `${request.protocol}://${request.headers.host}`;
  throw new AppError('BASE_URL_REQUIRED');
}
