/**
 * The LLM provider's outbound policy (decisions LL2). Not the add-ons' (kernel/sandbox/outbound-fetch.ts),
 * which refuses loopback and private addresses: an operator's model server on the same host or
 * network is what this is for. Refused always: a URL that is not http(s), a user or password in
 * it, a link-local address or a cloud metadata service (169.254.0.0/16, fe80::/10,
 * fd00:ec2::254, 100.100.100.200, metadata.google.internal), the unspecified, multicast and
 * reserved ranges. A public address needs network features (SVC_NETWORK_FEATURES). The name is
 * resolved at each call, every address checked, and the connection pinned to the checked one,
 * so a DNS answer that changes in between cannot move it (rebinding).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AppError } from '../../kernel/api.js';

export type AddressClass = 'local' | 'public' | 'refused';

const REFUSED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  REFUSED.addSubnet(net, prefix, 'ipv4');
REFUSED.addAddress('100.100.100.200', 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  REFUSED.addSubnet(net, prefix, 'ipv6');
REFUSED.addAddress('fd00:ec2::254', 'ipv6');

const LOCAL = new BlockList();
for (const [net, prefix] of [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
] as const)
  LOCAL.addSubnet(net, prefix, 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addSubnet('fc00::', 7, 'ipv6');

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.internal']);

function mappedV4(address: string): string | null {
  const m = /^::ffff:((?:\d{1,3}\.){3}\d{1,3})$/i.exec(address);
  return m ? m[1]! : null;
}

/** Where an address is: a local model server's (loopback, private), a public one, or one never called. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'refused';
  const v4 = family === 6 ? mappedV4(address) : address;
  if (v4) {
    if (REFUSED.check(v4, 'ipv4')) return 'refused';
    return LOCAL.check(v4, 'ipv4') ? 'local' : 'public';
  }
  if (REFUSED.check(address, 'ipv6')) return 'refused';
  return LOCAL.check(address, 'ipv6') ? 'local' : 'public';
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;
const defaultResolve: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

const invalid = (why: string) => new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.provider.baseUrl', code: 'baseUrl-invalid', message: why }] });

/** The URL's shape: http(s), no credentials, no metadata name; answers the URL and its bare host. */
export function parseBaseUrl(raw: string): { url: URL; host: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('Not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('Only http and https URLs.');
  if (url.username || url.password) throw invalid('No user or password in the URL: give the key as the API key, or as a header.');
  if (url.search || url.hash) throw invalid('No query or fragment in the base URL.');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (METADATA_NAMES.has(host)) throw invalid('A cloud metadata service is never called.');
  return { url, host };
}

/**
 * The addresses the host is at, each checked: 400 baseUrl-invalid for a refused one (link-local,
 * metadata), 409 NETWORK_FEATURES_DISABLED for a public one while network features are off.
 * `unresolvable`: what a name that does not resolve answers (null at PUT, where the call is
 * later; an error at a call).
 */
export async function checkedAddresses(host: string, networkFeatures: boolean, resolve: Resolver = defaultResolve): Promise<LookupAddress[] | null> {
  let addresses: LookupAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else if (host === 'localhost') addresses = [{ address: '127.0.0.1', family: 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
  }
  for (const a of addresses) if (classifyAddress(a.address) === 'refused') throw invalid('A link-local address or a cloud metadata service is never called.');
  const isPublic = addresses.length === 0 || addresses.some((a) => classifyAddress(a.address) === 'public');
  if (isPublic && !networkFeatures) {
    throw new AppError('NETWORK_FEATURES_DISABLED', {
      message: 'Network features are off (SVC_NETWORK_FEATURES=false): only a model server on a loopback or private address can be used.',
    });
  }
  return addresses.length ? addresses : null;
}

export interface ProviderResponse {
  status: number;
  body: string;
}

/** Why a call failed before an HTTP answer. */
export class ProviderUnreachable extends Error {
  constructor(readonly why: 'timeout' | 'network' | 'dns' | 'too-large') {
    super(why);
  }
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** One request to the provider under the policy, pinned to the address checked. */
export async function providerRequest(
  target: URL,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; timeoutMs: number; signal?: AbortSignal },
  networkFeatures: boolean,
  resolve?: Resolver,
): Promise<ProviderResponse> {
  const { host } = parseBaseUrl(target.origin + target.pathname);
  const addresses = await checkedAddresses(host, networkFeatures, resolve);
  if (!addresses) throw new ProviderUnreachable('dns');
  const pinned = addresses[0]!;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const deadline = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([deadline, init.signal]) : deadline;
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolveAnswer, reject) => {
    const req = client.request(
      target,
      { method: init.method, headers: init.headers, lookup, agent: false, signal, servername: target.protocol === 'https:' && !isIP(host) ? host : undefined },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy();
            reject(new ProviderUnreachable('too-large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => reject(new ProviderUnreachable(signal.aborted ? 'timeout' : 'network')));
      },
    );
    req.on('error', () => reject(new ProviderUnreachable(signal.aborted ? 'timeout' : 'network')));
    if (init.body !== undefined) req.end(init.body);
    else req.end();
  });
}
