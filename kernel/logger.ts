import type { FastifyBaseLogger } from 'fastify';

export type Logger = FastifyBaseLogger;

/** Paths pino removes from every log line: credentials never reach a log. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-public-session"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.secret',
  '*.token',
  '*.url',
];

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** The server's logger is pino's, which has these besides fastify's base. */
type PinoLogger = Logger & { isLevelEnabled(level: string): boolean; bindings(): Record<string, unknown> };
const BINDINGS = Symbol('bindings');
const MADE = Symbol('made');
interface Deferred {
  [BINDINGS]: Record<string, unknown>;
  [MADE]?: Logger;
}

/** Per parent logger and level: the prototype of its deferred children. */
const prototypes = new WeakMap<PinoLogger, { level: string; proto: Logger }>();

function deferredPrototype(parent: PinoLogger): Logger {
  const known = prototypes.get(parent);
  if (known && known.level === parent.level) return known.proto;
  const proto = Object.create(parent) as Logger & Record<string, unknown>;
  const made = (self: Deferred): Logger => (self[MADE] ??= parent.child(self[BINDINGS]));
  // Levels that write: the first line makes the real child. The others stay the parent's no-ops.
  for (const level of LEVELS) {
    if (parent.isLevelEnabled(level))
      proto[level] = function (this: Deferred, ...args: unknown[]) {
        const real = made(this);
        (real[level] as (...a: unknown[]) => void).apply(real, args);
      };
  }
  proto['child'] = function (this: Deferred, ...args: Parameters<Logger['child']>) {
    return made(this).child(...args);
  };
  proto['bindings'] = function (this: Deferred) {
    return { ...parent.bindings(), ...this[BINDINGS] };
  };
  prototypes.set(parent, { level: parent.level, proto });
  return proto;
}

/**
 * fastify's `childLoggerFactory`: a request's logger is pino's child of the server's, with the
 * request id bound. pino makes a child by serialising its bindings, about 0.2 µs, and fastify
 * makes one for every request; at a level above `info` (fastify's per-request lines are `info`)
 * most requests never write a line. So there the child is made when the request first writes
 * one, and a request that writes none costs one small object (decisions K39). At `info` and
 * finer, and for a route with its own level or serialisers, it is pino's child as before.
 */
export function requestLogger(logger: Logger, bindings: Record<string, unknown>, options: { level?: string; serializers?: unknown }): Logger {
  const parent = logger as PinoLogger;
  // fastify's logger of a server without logging has no levels: its child is itself.
  const deferrable = typeof parent.isLevelEnabled === 'function' && !parent.isLevelEnabled('info');
  if (!deferrable || options.level !== undefined || options.serializers !== undefined) return parent.child(bindings, options as never);
  const deferred = Object.create(deferredPrototype(parent)) as Logger & Deferred;
  deferred[BINDINGS] = bindings;
  return deferred;
}
