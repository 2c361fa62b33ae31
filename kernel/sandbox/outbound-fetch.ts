/**
 * `ctx.fetch` of an add-on (DESIGN D25): HTTP(S) to the host names its addon.json lists in
 * `outbound`, only while network features are on. The name is resolved once, every address it
 * resolves to is checked (no loopback, private, link-local, multicast or reserved address), and
 * the connection goes to the checked address (pinned through the request's `lookup`), so a DNS
 * answer that changes between the check and the connect (rebinding) cannot move it. IP literals
 * are refused outright. Redirects are not followed (the add-on sees the 3xx and its Location).
 * A dev instance (`svc-addon dev --allow-outbound`, decisions AO40) may name exact origins that
 * pass none of those checks but the scheme's: a local mock server.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { FetchInit, FetchResponse } from '../../addons-sdk/src/define.js';
import { AppError } from '../errors.js';
import './errors.js';

export type { FetchInit, FetchResponse };

export interface OutboundOptions {
  /** addon.json `outbound`: exact names, or `*.example.com` for any name under example.com (not example.com itself). */
  allowedHosts: readonly string[];
  /** The instance's SVC_NETWORK_FEATURES. */
  networkFeatures: boolean;
  /** Tests only: let names that resolve to a loopback address through (other private ranges stay refused). */
  allowLoopbackForTests?: boolean;
  /**
   * Dev instances only (scripts/dev-instance.ts; the server's add-ons plugin never sets it):
   * exact origins (`http://127.0.0.1:4010`, as URL#origin writes them) reached whatever the
   * outbound list says and whatever address they are at, IP literals included. Another port
   * or scheme of the same host keeps the full policy.
   */
  devOrigins?: readonly string[];
  /** Response body cap, default 5 MiB. */
  maxBodyBytes?: number;
  /** Whole request, default 10 s. */
  timeoutMs?: number;
  /** Resolver (tests); default dns.lookup with `all: true`. */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

const MAX_REQUEST_BODY = 1024 * 1024;
const DEFAULT_MAX_BODY = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT = 10_000;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Headers the add-on does not set: the connection's own. */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
]);

/** Why a fetch was refused, in the words of its message (the add-on reads it; `params.reason` is the code). */
const REFUSED_BECAUSE: Record<string, string> = {
  invalid_url: 'not a URL',
  scheme: 'only http and https',
  credentials_in_url: 'user or password in the URL',
  ip_literal: 'an IP address, not a host name (outbound lists host names)',
  host_not_listed: "host not in the add-on's allow-list (outbound in addon.json)",
  method: 'method not allowed',
  request_body: 'request body is not a string of at most 1 MiB',
  private_address: 'private address',
  headers: 'a malformed header',
};
const FAILED_BECAUSE: Record<string, string> = {
  dns: 'the host name does not resolve',
  response_too_large: 'the response is too large',
  timeout: 'no answer in time',
  network: 'the connection failed',
};

/** `outbound fetch to <host> refused: <why>`: the message names what was asked and why it was not sent. */
const refused = (what: string, reason: string, params: Record<string, unknown> = {}, because = REFUSED_BECAUSE[reason] ?? reason) =>
  new AppError('ADDON_OUTBOUND_REFUSED', { message: `outbound fetch to ${what} refused: ${because}`, params: { reason, ...params } });
const failed = (what: string, reason: string, params: Record<string, unknown> = {}) =>
  new AppError('ADDON_FETCH_FAILED', { message: `outbound fetch to ${what} failed: ${FAILED_BECAUSE[reason] ?? reason}`, params: { reason, ...params } });

/** Addresses no add-on may reach: loopback, private, CGNAT, link-local, multicast, documentation and reserved ranges. */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`), if it is one. */
function mappedV4(address: string): string | null {
  const m = /^::ffff:(?:0:)?((?:\d{1,3}\.){3}\d{1,3})$/i.exec(address);
  if (m) return m[1]!;
  const h = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!h) return null;
  const hi = parseInt(h[1]!, 16);
  const lo = parseInt(h[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an add-on may connect to this address. */
export function isPublicAddress(address: string, allowLoopback = false): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const v4 = family === 6 ? mappedV4(address) : address;
  if (v4 !== null && isIP(v4) === 4) {
    if (allowLoopback && LOOPBACK.check(v4, 'ipv4')) return true;
    return !BLOCKED.check(v4, 'ipv4');
  }
  if (allowLoopback && LOOPBACK.check(address, 'ipv6')) return true;
  return !BLOCKED.check(address, 'ipv6');
}

/** `api.example.com` matches `api.example.com` and `*.example.com`; `example.com` matches only itself. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase().replace(/\.$/, '');
    if (p.startsWith('*.')) return name.endsWith(p.slice(1)) && name.length > p.length - 1;
    return name === p;
  });
}

/**
 * The host names an add-on's `outbound` allows now: its host entries, and for each
 * `connect:<field>` entry the host of the http(s) URL in that field of what connect stored (none
 * while not connected). Only the exact host is added; every other rule of outboundFetch still
 * applies to it (network features, no IP literal, no private address).
 */
export function outboundHosts(entries: readonly string[], connection: Readonly<Record<string, string>> | null): string[] {
  const hosts: string[] = [];
  for (const entry of entries) {
    if (!entry.startsWith('connect:')) {
      hosts.push(entry);
      continue;
    }
    const value = connection?.[entry.slice('connect:'.length)];
    if (!value) continue;
    try {
      const url = new URL(value);
      const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      if ((url.protocol === 'http:' || url.protocol === 'https:') && host && isIP(host) === 0 && !host.startsWith('*')) hosts.push(host);
    } catch {
      // Not a URL: it allows nothing, and the add-on's fetch of it is refused.
    }
  }
  return hosts;
}

const defaultResolve = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

export async function outboundFetch(url: string, init: FetchInit | undefined, opts: OutboundOptions): Promise<FetchResponse> {
  const res = await outboundRequest(url, init, opts);
  return { ...res, body: res.body.toString('utf8') };
}

/** outboundFetch with the body as bytes (the instance's own fetches of catalog indexes and packages, AO25). */
export async function outboundRequest(
  url: string,
  init: FetchInit | undefined,
  opts: OutboundOptions,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  if (!opts.networkFeatures) throw new AppError('NETWORK_FEATURES_DISABLED');
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw refused(String(url).slice(0, 200), 'invalid_url');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw refused(target.host || target.protocol, 'scheme', { scheme: target.protocol.replace(/:$/, '') });
  if (target.username || target.password) throw refused(target.hostname, 'credentials_in_url', { host: target.hostname });
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const devOrigin = opts.devOrigins?.includes(target.origin) === true;
  // An IP literal is refused outright; the message says so of a private one too, the reason a name resolving to it is refused for.
  if (isIP(host) !== 0 && !devOrigin)
    throw refused(host, 'ip_literal', { host }, isPublicAddress(host) ? REFUSED_BECAUSE['ip_literal'] : REFUSED_BECAUSE['private_address']);
  if (!devOrigin && !hostAllowed(host, opts.allowedHosts)) throw refused(host, 'host_not_listed', { host });

  const method = (init?.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw refused(host, 'method', { host, method });
  const body = init?.body;
  if (body !== undefined && (typeof body !== 'string' || Buffer.byteLength(body) > MAX_REQUEST_BODY))
    throw refused(host, 'request_body', { host, max: MAX_REQUEST_BODY });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(init?.headers ?? {})) {
    if (typeof v !== 'string' || DROPPED_HEADERS.has(k.toLowerCase())) continue;
    headers[k] = v;
  }

  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT;
  const deadline = AbortSignal.timeout(timeoutMs);
  let addresses: LookupAddress[];
  try {
    // Only a dev origin gets here with an IP literal: it is its own address.
    addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await (opts.resolve ?? defaultResolve)(host);
  } catch {
    throw failed(host, 'dns', { host });
  }
  if (addresses.length === 0) throw failed(host, 'dns', { host });
  // The address a name resolved to stays out of the message (the add-on learns no internal address), and goes into the log with params.
  for (const a of addresses)
    if (!devOrigin && !isPublicAddress(a.address, opts.allowLoopbackForTests === true)) throw refused(host, 'private_address', { host, address: a.address });
  const pinned = addresses[0]!;
  // The connection goes to the address just checked, whatever the resolver would say now.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const client = target.protocol === 'https:' ? https : http;

  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    try {
      req = client.request(
        target,
        {
          method,
          headers,
          lookup,
          agent: false,
          signal: deadline,
          servername: target.protocol === 'https:' && isIP(host) === 0 ? host : undefined,
          maxHeaderSize: 64 * 1024,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBody) {
              req.destroy();
              reject(failed(host, 'response_too_large', { host, max: maxBody }));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const out: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
            resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks) });
          });
          res.on('error', () => reject(deadline.aborted ? failed(host, 'timeout', { host, timeoutMs }) : failed(host, 'network', { host })));
        },
      );
    } catch {
      // Node refuses a malformed header name or value before anything is sent.
      reject(refused(host, 'headers', { host }));
      return;
    }
    req.on('error', () => reject(deadline.aborted ? failed(host, 'timeout', { host, timeoutMs }) : failed(host, 'network', { host })));
    if (body !== undefined) req.end(body);
    else req.end();
  });
}
