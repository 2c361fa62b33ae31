import { Signer } from '@fastify/cookie';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RecentAnswers } from '../memo/recent.js';

/*
 * The instance's cookies without a fastify plugin: @fastify/cookie's plugin adds an onSend hook
 * to every answer of the server (healthz, public reads) to write cookies that only sign-in and
 * sign-out set. Its signer (the same HMAC-SHA256 format, so cookies issued before keep opening)
 * and the `cookie` package do the work; the Set-Cookie header is written by the route that sets it.
 */

export interface CookieOptions {
  path?: string;
  httpOnly?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  secure?: boolean;
  /** Seconds. */
  maxAge?: number;
  expires?: Date;
}

export class Cookies {
  private readonly signer: InstanceType<typeof Signer>;
  /** A browser sends the same signed cookie with every request: its HMAC is checked once. Only cookies that opened are kept. */
  private readonly opened = new RecentAnswers<string>();
  private readonly parsed = new WeakMap<FastifyRequest, Record<string, string | undefined>>();

  constructor(secret: string) {
    this.signer = new Signer(secret, 'sha256');
  }

  /** A cookie the request carries, parsed on first use (routes that never read cookies never parse them). */
  read(req: FastifyRequest, name: string): string | undefined {
    const header = req.headers.cookie;
    if (!header) return undefined;
    let all = this.parsed.get(req);
    if (!all) this.parsed.set(req, (all = parseCookie(header)));
    return all[name];
  }

  sign(value: string): string {
    return this.signer.sign(value);
  }

  /** The value inside a signed cookie, or null when its signature does not hold. */
  open(signed: string): string | null {
    const known = this.opened.get(signed);
    if (known !== undefined) return known;
    const unsigned = this.signer.unsign(signed);
    if (!unsigned.valid || !unsigned.value) return null;
    this.opened.set(signed, unsigned.value);
    return unsigned.value;
  }

  set(reply: FastifyReply, name: string, value: string, options: CookieOptions & { signed?: boolean }): void {
    const { signed, ...attributes } = options;
    reply.header('set-cookie', stringifySetCookie({ name, value: signed ? this.sign(value) : value, sameSite: 'lax', ...attributes }));
  }

  clear(reply: FastifyReply, name: string, options: CookieOptions): void {
    this.set(reply, name, '', { path: '/', ...options, expires: new Date(0), maxAge: 0 });
  }
}

const byServer = new WeakMap<object, Cookies>();

/** Gives a server its cookies (app.ts, once): every encapsulated context of it reaches the same through `cookiesOf`. */
export function installCookies(app: FastifyInstance, secret: string): Cookies {
  const cookies = new Cookies(secret);
  byServer.set(app.server, cookies);
  return cookies;
}

/** The cookies of the server a request or reply belongs to. */
export function cookiesOf(at: { server: FastifyInstance }): Cookies {
  const cookies = byServer.get(at.server.server);
  if (!cookies) throw new Error('installCookies was not called for this server');
  return cookies;
}
