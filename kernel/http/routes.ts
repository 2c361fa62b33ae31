import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AudienceGate } from '../contract/audience.js';
import { HANDLED, Reply, isRawResponse, type RouteDefinition } from '../contract/route.js';
import { JSON_COMPRESSION } from './compression.js';
import { actorOf, type AuditContext, type AuditEntryInput } from '../audit.js';
import { AppError, type ErrorIssue } from '../errors.js';
import type { Principal } from '../identity/principal.js';
import type { Kernel } from '../kernel-services.js';
import { audienceRouteOptions } from './audience.js';
import { authenticate, type Authenticated } from './authenticate.js';

export const API_PREFIX = '/api/v1';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function zodIssues(part: string, error: z.ZodError): ErrorIssue[] {
  return error.issues.map((i) => ({
    path: [part, ...i.path.map(String)].join('.'),
    code: i.code,
    message: i.message,
  }));
}

function firstSuccessStatus(def: RouteDefinition): number {
  return Number(Object.keys(def.schema.response).find((s) => /^2\d\d$/.test(s)));
}

function parsePart(part: 'params' | 'query' | 'body', schema: z.ZodType, value: unknown, issues: ErrorIssue[]): unknown {
  const out = schema.safeParse(value);
  if (out.success) return out.data;
  issues.push(...zodIssues(part, out.error));
  return undefined;
}

function auditContextOf(req: FastifyRequest): AuditContext {
  return { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, requestId: req.id };
}

/**
 * The handler's context. Audit helpers are made on first use only: most requests are reads
 * that never touch them, and this object is built on every request.
 */
class RouteCall {
  entries: AuditEntryInput[] | null = null;

  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly principal: Principal | null,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    readonly kernel: Kernel,
  ) {}

  get requestId(): string {
    return this.request.id;
  }

  get caller(): unknown {
    return this.request.audienceCaller;
  }

  get audit(): (entry: AuditEntryInput) => void {
    return (entry) => void (this.entries ??= []).push(entry);
  }

  get auditNow(): (entry: AuditEntryInput) => Promise<void> {
    return async (entry) => void (await this.kernel.audit.record(entry, actorOf(this.principal), auditContextOf(this.request)));
  }

  /** The entry recorded before a write runs (decisions K44); null before, and once settled or withdrawn. */
  private reserved: string | null = null;

  private generic(plugin: string, def: RouteDefinition): AuditEntryInput {
    return { action: `${plugin}:${def.method} ${def.url}`, target: null, diff: { params: this.params, body: this.body } };
  }

  /**
   * Before a write runs, its audit entry is recorded, bare (`<plugin>:<METHOD> <url>`, the actor,
   * the request id; no input, which may be a guest's personal values that the handler's own entry
   * leaves out): when that cannot be written (a full disk), the write does not happen either, and
   * the request fails before any change instead of succeeding without its entry.
   */
  async reserve(plugin: string, def: RouteDefinition): Promise<void> {
    const { action } = this.generic(plugin, def);
    this.reserved = await this.kernel.audit.record({ action, target: null }, actorOf(this.principal), auditContextOf(this.request));
  }

  /** The write did not happen (refused or failed): its entry goes. */
  async withdraw(): Promise<void> {
    const id = this.reserved;
    if (id === null) return;
    this.reserved = null;
    await this.kernel.audit
      .withdraw(id)
      .catch((err: Error) => this.request.log.error({ err: { message: err.message }, auditId: id }, 'audit entry of a write that did not happen not removed'));
  }

  /** After a successful write: the reserved entry becomes what the handler recorded (or stays generic). */
  async recordWrite(plugin: string, def: RouteDefinition): Promise<void> {
    const [first, ...rest] = this.entries ?? [this.generic(plugin, def)];
    const actor = actorOf(this.principal);
    const reserved = this.reserved;
    this.reserved = null;
    if (reserved !== null) {
      // The write has happened and its bare entry is in the trail: a failing update leaves that one.
      await this.kernel.audit
        .settle(reserved, first!, actor)
        .catch((err: Error) =>
          this.request.log.error({ err: { message: err.message }, action: first!.action, auditId: reserved }, 'audit entry kept in its bare form'),
        );
    }
    const context = auditContextOf(this.request);
    for (const entry of reserved === null ? [first!, ...rest] : rest) {
      // Further entries of one write: each is its own insert, and a failing one is logged.
      await this.kernel.audit
        .record(entry, actor, context)
        .catch((err: Error) => this.request.log.error({ err: { message: err.message }, action: entry.action }, 'audit entry not recorded'));
    }
  }
}

/**
 * Mounts one contract route: authorise, validate every part, run the handler, and check the
 * answer against the declared response schema (extra keys are stripped or, for strict
 * schemas, refused) so nothing undeclared ever leaves the server.
 *
 * A request whose principal is kept and whose handler answers at once is served without a
 * promise (decisions K40): fastify sends what the handler returns. Each step that did wait hands
 * on through `then`, so a rejection reaches fastify's error handling as a throw does.
 */
export function mountRoute(app: FastifyInstance, plugin: string, def: RouteDefinition, kernel: Kernel, gate?: AudienceGate<unknown, unknown>): void {
  const success = firstSuccessStatus(def);
  const isWrite = WRITE_METHODS.has(def.method) && !def.readsOnly;
  const { params: paramsSchema, query: querySchema, body: bodySchema } = def.schema;
  const takesInput = Boolean(paramsSchema || querySchema || bodySchema);

  const permitted = (auth: Authenticated | null): Principal => {
    if (!auth) throw new AppError('AUTH_REQUIRED');
    if (!auth.principal.permissions.has(def.permission!)) throw new AppError('FORBIDDEN', { params: { permission: def.permission } });
    return auth.principal;
  };

  const run = (req: FastifyRequest, res: FastifyReply, principal: Principal | null): unknown => {
    let params: unknown, query: unknown, body: unknown;
    if (takesInput) {
      const issues: ErrorIssue[] = [];
      params = paramsSchema ? parsePart('params', paramsSchema, req.params, issues) : undefined;
      query = querySchema ? parsePart('query', querySchema, req.query ?? {}, issues) : undefined;
      body = bodySchema ? parsePart('body', bodySchema, req.body, issues) : undefined;
      if (issues.length > 0) throw new AppError('VALIDATION_FAILED', { issues });
    }
    const call = new RouteCall(params, query, body, principal, req, res, kernel);
    if (isWrite) return call.reserve(plugin, def).then(() => write(call));
    const answered = def.handler(call as never);
    return answered instanceof Promise ? answered.then((result: unknown) => settle(call, result)) : settle(call, answered);
  };

  /** A write's handler: what it answers is settled; when it throws, its reserved entry goes. */
  const write = async (call: RouteCall): Promise<unknown> => {
    let result: unknown;
    try {
      result = await def.handler(call as never);
    } catch (err) {
      await call.withdraw();
      throw err;
    }
    return settle(call, result);
  };

  /** What fastify sends: the checked payload, or the reply itself when the handler answered on it. */
  const settle = (call: RouteCall, result: unknown): unknown => {
    const res = call.reply;
    if (result === HANDLED) return isWrite ? call.recordWrite(plugin, def).then(() => res) : res;
    const { status, payload, headers } =
      result instanceof Reply ? { status: result.status, payload: result.body, headers: result.headers } : { status: success, payload: result, headers: null };
    const schema = def.schema.response[status];
    if (!schema || isRawResponse(schema)) {
      call.request.log.error({ plugin, route: `${def.method} ${def.url}`, status }, 'handler answered a status its route does not declare');
      throw new AppError('INTERNAL');
    }
    const checked = schema.safeParse(payload);
    if (!checked.success) {
      call.request.log.error(
        { plugin, route: `${def.method} ${def.url}`, status, issues: zodIssues('response', checked.error) },
        'response does not match its declared schema',
      );
      throw new AppError('INTERNAL');
    }
    res.code(status);
    if (headers) res.headers(headers);
    // Only a write that succeeded is in the trail; refusals record themselves with auditNow.
    if (!isWrite) return checked.data;
    return (status < 300 ? call.recordWrite(plugin, def) : call.withdraw()).then(() => checked.data);
  };

  if (def.audience && !gate) throw new Error(`route ${def.method} ${def.url} of plugin ${plugin}: audience ${def.audience.name} has no gate`);
  app.route({
    method: def.method,
    url: API_PREFIX + def.url,
    ...(def.bodyLimit ? { bodyLimit: def.bodyLimit } : {}),
    // A JSON answer is compressed when asked; a raw one (a download, a file) goes as it is.
    ...(isRawResponse(def.schema.response[success]) ? {} : { compress: JSON_COMPRESSION }),
    ...(def.audience ? audienceRouteOptions(def.audience, gate!) : {}),
    handler: (req: FastifyRequest, res: FastifyReply) => {
      let answer: unknown;
      // The kernel authenticates permission routes; an audience's gate has admitted its caller already.
      if (def.permission === undefined) answer = run(req, res, null);
      else {
        const found = authenticate(req, kernel.principals, kernel.config);
        answer = found instanceof Promise ? found.then((auth) => run(req, res, permitted(auth))) : run(req, res, permitted(found));
      }
      // fastify sends a promise's undefined but not a returned one: an empty answer is sent here.
      if (answer === undefined) res.send();
      return answer;
    },
  });
}
