import type { IncomingMessage } from 'node:http';
import { API_PREFIX } from './routes.js';

/**
 * Host names the instance serves something else on (D28 `PUT /surfaces/domains`): a request
 * whose `Host` is one of them reaches only the public API and what its owner serves there; the
 * dashboard, the admin API, /ws, /docs and healthz are not on that host at all. The add-ons
 * plugin sets the names; the kernel applies them before routing (fastify's `rewriteUrl`), so no
 * route or hook of another plugin ever sees such a request under its own URL.
 */
export interface HostRoute {
  /** The mapped name as stored: a lowercase DNS name, with `:port` when the mapping names one. */
  host: string;
  /** Who the host belongs to (an add-on key): the public gate admits that app's key from it. */
  owner: string;
  /**
   * The path every request to the host is served under (no trailing slash): `/` becomes this
   * path, `/a/b.js` becomes `<base>/a/b.js`. The owner's route there answers, or nothing does.
   */
  base: string;
  /** Free data the owner keeps with the route (the surface, the instance). */
  detail?: Record<string, string | null>;
}

/**
 * A `Host` value as it is compared everywhere (issue 26 point 27): lower case, and the name's
 * one trailing dot dropped (`book.example.com.` is the fully qualified spelling of
 * `book.example.com`: DNS and browsers take both, so both must mean the same here). The port,
 * and an IPv6 literal's brackets, are kept.
 */
export function normaliseHost(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) return host;
  const colon = host.lastIndexOf(':');
  const name = colon >= 0 ? host.slice(0, colon) : host;
  const port = colon >= 0 ? host.slice(colon) : '';
  return (name.endsWith('.') ? name.slice(0, -1) : name) + port;
}

/** What passes a mapped host unchanged. */
const PUBLIC_PATH = `${API_PREFIX}/public/`;

/**
 * Lookup is port-insensitive for a name mapped without a port (`shop.example` answers on
 * `shop.example:8080` too), exact for one mapped with a port (`shop.test:4000`). Both are Map
 * lookups, and none runs at all while nothing is mapped: every request passes through here.
 */
export class HostRoutes {
  private byHost = new Map<string, HostRoute>();

  /** Replaces every route at once (the mapping is always written whole). */
  replace(routes: readonly HostRoute[]): void {
    this.byHost = new Map(routes.map((r) => [r.host, r]));
  }

  /** The route of a raw `Host` header, or null (most requests: nothing is mapped). */
  match(header: string | undefined): HostRoute | null {
    if (this.byHost.size === 0 || !header) return null;
    const host = normaliseHost(header);
    const exact = this.byHost.get(host);
    if (exact) return exact;
    const colon = host.lastIndexOf(':');
    // Only a port after the name: whatever else follows a colon is not this host (and would reach the page's apiBase).
    return colon > 0 && !host.includes(']') && /^\d{1,5}$/.test(host.slice(colon + 1)) ? (this.byHost.get(host.slice(0, colon)) ?? null) : null;
  }

  /** fastify's `rewriteUrl`: the URL the router sees. */
  rewrite(req: IncomingMessage): string {
    const url = req.url ?? '/';
    const route = this.match(req.headers.host);
    if (!route || url.startsWith(PUBLIC_PATH)) return url;
    return url === '/' || url.startsWith('/?') ? route.base + url.slice(1) : route.base + url;
  }
}
