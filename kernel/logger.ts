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
