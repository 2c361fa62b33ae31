import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuditEntryInput } from '../audit.js';
import type { RouteAudience } from './audience.js';
import type { Principal } from '../identity/principal.js';
import type { Kernel } from '../kernel-services.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response that is not a JSON body (a stream, a file): the handler writes it itself. */
export interface RawResponse {
  readonly raw: true;
  readonly contentType: string;
  readonly description: string;
}
export function rawResponse(contentType: string, description: string): RawResponse {
  return { raw: true, contentType, description };
}
export function isRawResponse(v: unknown): v is RawResponse {
  return typeof v === 'object' && v !== null && (v as RawResponse).raw === true;
}

export type ResponseSchema = z.ZodType | RawResponse;

export interface RouteSchema {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response: Record<number, ResponseSchema>;
}

/** Marks a POST/PUT/PATCH that takes no body: an absent body or an empty object. */
export const noBody = z.union([z.undefined(), z.strictObject({})]).meta({ description: 'No body' });

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
type ResponseBodies<R> = { [K in keyof R]: R[K] extends z.ZodType ? z.input<R[K]> : never }[keyof R];

/** Returned by a handler that answers with a status other than the route's first 2xx. */
export class Reply<S extends number = number, B = unknown> {
  constructor(
    readonly status: S,
    readonly body: B,
    readonly headers: Record<string, string> = {},
  ) {}
}
export function reply<S extends number, B>(status: S, body: B, headers?: Record<string, string>): Reply<S, B> {
  return new Reply(status, body, headers);
}
/** Returned by a handler that wrote the response itself (raw responses, hijacked streams). */
export const HANDLED = Symbol('handled');

export interface RouteContext<S extends RouteSchema, Caller = null> {
  params: Infer<S['params']>;
  query: Infer<S['query']>;
  body: Infer<S['body']>;
  /** Set on every route with a permission; null on public and audience routes. */
  principal: Principal | null;
  /** Who the route's audience gate admitted (its provider's caller type); null on other routes. */
  caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
  kernel: Kernel;
  requestId: string;
  /**
   * Records what this write did in the audit trail once the handler succeeds. Without a
   * call, every successful POST/PUT/PATCH/DELETE still records a generic entry.
   */
  audit(entry: AuditEntryInput): void;
  /** Records at once, even if the request then fails (refused sign-ins). */
  auditNow(entry: AuditEntryInput): Promise<void>;
}

export type RouteResult<S extends RouteSchema> = ResponseBodies<S['response']> | Reply<number, ResponseBodies<S['response']>> | typeof HANDLED;

/** Upper bounds for a multipart route's body; the handler may pass lower ones to `request.file()`. */
export interface MultipartLimits {
  fileSize: number;
  files: number;
  fields: number;
  parts: number;
}

interface RouteBase<S extends RouteSchema, Caller> {
  method: HttpMethod;
  /** Relative to /api/v1, fastify syntax (`/users/:id`). */
  url: string;
  summary: string;
  description?: string;
  tags?: string[];
  schema: S;
  /** Bytes; the kernel default applies otherwise. */
  bodyLimit?: number;
  /**
   * The body is multipart/form-data (a file upload), read in the handler with
   * `request.file()`. The kernel mounts such a route in a scope of its own with a multipart
   * parser and these limits, so no other route takes multipart bodies or pays for the parser.
   */
  multipart?: MultipartLimits;
  /**
   * A POST that changes nothing (a query too large or too structured for a query string, such as
   * widget data): it is not audited as a write, so it costs no meta-store statement (decisions K50).
   */
  readsOnly?: true;
  handler: (ctx: RouteContext<S, Caller>) => Promise<RouteResult<S>> | RouteResult<S>;
}

/**
 * Who may call: holders of a permission (the kernel authenticates), anyone (`public: true`), or
 * an audience whose gate, provided by a plugin, admits each request (decisions K47).
 */
type Access<Caller> =
  | { permission: string; public?: undefined; audience?: undefined }
  | { public: true; permission?: undefined; audience?: undefined }
  | { audience: RouteAudience<Caller>; permission?: undefined; public?: undefined };

export type RouteDefinition<S extends RouteSchema = RouteSchema, Caller = unknown> = RouteBase<S, Caller> & Access<Caller>;

/** Identity function that gives a route its types; the kernel checks the contract at start. */
export function route<S extends RouteSchema, Caller = null>(def: RouteDefinition<S, Caller>): RouteDefinition<RouteSchema> {
  return def as unknown as RouteDefinition<RouteSchema>;
}

/** The pseudo-permission every signed-in principal holds (own profile, own sessions, events). */
export const SIGNED_IN = 'self';
