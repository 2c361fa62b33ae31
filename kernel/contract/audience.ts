import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Kernel } from '../kernel-services.js';

/** Types only: carries an audience's caller type from its reference to the handlers' `caller`. */
declare const CALLER: unique symbol;

/**
 * Who may call a route that the kernel does not authenticate itself (decisions K47): one
 * plugin's gate admits each request and says who is calling. A route declares it in place of a
 * permission; `options` is what that route tells the gate (e.g. how a call is charged).
 */
export interface RouteAudience<Caller = unknown> {
  readonly name: string;
  /** The plugin whose manifest provides the gate; a route's plugin must be it or require it. */
  readonly provider: string;
  /** The URL space (relative to /api/v1) the audience owns: its routes live there, and every route there has an audience. */
  readonly under: string;
  readonly options: unknown;
  readonly [CALLER]?: Caller;
}

/** The typed reference a provider exports (from its provides.ts): routes name it, the provider's manifest provides its gate. */
export interface Audience<Caller, Options = never> extends RouteAudience<Caller> {
  readonly options: undefined;
  /** The audience with what one route tells its gate. */
  with(options: Options): RouteAudience<Caller>;
}

export function defineAudience<Caller, Options = never>(def: { name: string; provider: string; under: string }): Audience<Caller, Options> {
  return { ...def, options: undefined, with: (options: Options) => ({ ...def, options }) };
}

/** Admits one request: answers who is calling, or throws the refusal. A value, not a promise, answers without an async step (K40). */
export type Admit<Caller> = (req: FastifyRequest, reply: FastifyReply) => Caller | Promise<Caller>;

/** What the providing plugin hands the kernel for its audience; the kernel applies it to each route of the audience as it is mounted. */
export interface AudienceGate<Caller, Options = never> {
  /** The admission of one route's requests, made once with the route's options. */
  admit(options: Options | undefined): Admit<Caller>;
  /**
   * When it runs: before the body is read (`request`, the default), or once it is parsed
   * (`body`), where a refusal answers as a path without a route does even for a malformed body.
   */
  stage?: 'request' | 'body';
  /** How errors render on the audience's routes. */
  errorHandler?: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void;
  /** The gate answers CORS itself: the dashboard's credentialed CORS stays off these routes. */
  ownCors?: boolean;
}

/** A manifest's `audiences` entry: the gate is built after the plugin's setup, from what it provides. */
export interface AudienceProvision<Provides = unknown> {
  readonly audience: Audience<unknown, unknown>;
  gate(provided: Provides, kernel: Kernel): AudienceGate<unknown, unknown>;
}

export function provideAudience<Caller, Options, Provides>(
  audience: Audience<Caller, Options>,
  gate: (provided: Provides, kernel: Kernel) => AudienceGate<Caller, Options>,
): AudienceProvision<Provides> {
  return { audience, gate } as unknown as AudienceProvision<Provides>;
}
