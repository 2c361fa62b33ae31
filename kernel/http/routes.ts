import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { HANDLED, Reply, isRawResponse, type RouteDefinition } from '../contract/route.js';
import { actorOf, type AuditEntryInput } from '../audit.js';
import { AppError, type ErrorIssue } from '../errors.js';
import type { Kernel } from '../kernel-services.js';
import { authenticate } from './authenticate.js';

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

/**
 * Mounts one contract route: authorise, validate every part, run the handler, and check the
 * answer against the declared response schema (extra keys are stripped or, for strict
 * schemas, refused) so nothing undeclared ever leaves the server.
 */
export function mountRoute(app: FastifyInstance, plugin: string, def: RouteDefinition, kernel: Kernel): void {
  const success = firstSuccessStatus(def);
  app.route({
    method: def.method,
    url: API_PREFIX + def.url,
    ...(def.bodyLimit ? { bodyLimit: def.bodyLimit } : {}),
    handler: async (req: FastifyRequest, res: FastifyReply) => {
      let principal = null;
      if (!def.public) {
        const auth = await authenticate(req, kernel.identity, kernel.config);
        if (!auth) throw new AppError('AUTH_REQUIRED');
        if (!auth.principal.permissions.has(def.permission!)) throw new AppError('FORBIDDEN', { params: { permission: def.permission } });
        principal = auth.principal;
      }
      const issues: ErrorIssue[] = [];
      const parse = (part: 'params' | 'query' | 'body', schema: z.ZodType | undefined, value: unknown): unknown => {
        if (!schema) return undefined;
        const out = schema.safeParse(value);
        if (out.success) return out.data;
        issues.push(...zodIssues(part, out.error));
        return undefined;
      };
      const params = parse('params', def.schema.params, req.params);
      const query = parse('query', def.schema.query, req.query ?? {});
      const body = parse('body', def.schema.body, req.body);
      if (issues.length > 0) throw new AppError('VALIDATION_FAILED', { issues });

      const audits: AuditEntryInput[] = [];
      const auditContext = { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, requestId: req.id };
      const audit = (entry: AuditEntryInput) => void audits.push(entry);
      const auditNow = async (entry: AuditEntryInput) => {
        await kernel.audit.record(entry, actorOf(principal), auditContext);
      };
      const result = await def.handler({ params, query, body, principal, request: req, reply: res, kernel, requestId: req.id, audit, auditNow } as never);
      if (WRITE_METHODS.has(def.method)) {
        if (audits.length === 0) audits.push({ action: `${plugin}:${def.method} ${def.url}`, target: null, diff: { params, body } });
        const actor = actorOf(principal);
        for (const entry of audits) {
          // The write has happened; a failing audit insert is logged, not turned into an error.
          await kernel.audit.record(entry, actor, auditContext).catch((err: Error) => req.log.error({ err: { message: err.message }, action: entry.action }, 'audit entry not recorded'));
        }
      }
      if (result === HANDLED) return res;
      const { status, payload, headers } =
        result instanceof Reply ? { status: result.status, payload: result.body, headers: result.headers } : { status: success, payload: result, headers: {} };
      const schema = def.schema.response[status];
      if (!schema || isRawResponse(schema)) {
        req.log.error({ plugin, route: `${def.method} ${def.url}`, status }, 'handler answered a status its route does not declare');
        throw new AppError('INTERNAL');
      }
      const checked = schema.safeParse(payload);
      if (!checked.success) {
        req.log.error(
          { plugin, route: `${def.method} ${def.url}`, status, issues: zodIssues('response', checked.error) },
          'response does not match its declared schema',
        );
        throw new AppError('INTERNAL');
      }
      res.code(status).headers(headers);
      return checked.data;
    },
  });
}
