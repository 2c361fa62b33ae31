import { z } from 'zod';
import { FAILURE_REASONS, MAX_URL_LENGTH, parseSourceUrl, SOURCE_DIALECTS, TLS_MODES } from '../../engine/sources/index.js';

export const dialectField = z.enum(SOURCE_DIALECTS);
export const connectionNameField = z
  .string()
  .trim()
  .min(1)
  .max(120)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'no control characters');
export const urlField = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .describe(
    'postgres://user:password@host:5432/database, mysql://… (also mariadb://), or sqlite:/absolute/path.db; the only parameter is sslmode=disable|require|verify-full',
  );
export const connectionIdParams = z.object({ id: z.string().min(1).max(64) });

export const lastTestSchema = z
  .strictObject({
    at: z.number(),
    ok: z.boolean(),
    /** Why it failed (as in CONNECTION_FAILED params.reason); null when it worked. */
    reason: z.enum(FAILURE_REASONS).nullable(),
    latencyMs: z.number().nullable(),
  })
  .meta({ id: 'ConnectionLastTest' });

/** A stored connection. Never its URL or password (D11, D18). */
export const connectionSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    dialect: dialectField,
    readOnly: z.boolean(),
    host: z.string().nullable().describe('null for SQLite'),
    port: z.number().int().nullable().describe('null for SQLite; the default port when the URL named none'),
    database: z.string().nullable().describe('the database name; for SQLite, the file path'),
    user: z.string().nullable().describe('the user name from the URL; null for SQLite or when none was given'),
    tls: z.enum(TLS_MODES).nullable().describe('sslmode from the URL (disable when none); null for SQLite'),
    serverVersion: z.string().nullable().describe('as the server reported it at the last successful test'),
    lastTest: lastTestSchema.nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'Connection' });
export type Connection = z.infer<typeof connectionSchema>;

/** The URL must suit the dialect; the issue names body.url and never repeats the URL. */
function checkUrl(dialect: z.infer<typeof dialectField>, url: string, ctx: z.RefinementCtx): void {
  const parsed = parseSourceUrl(dialect, url);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', path: ['url'], message: parsed.message });
}

export const connectionInputBody = z
  .strictObject({ name: connectionNameField, dialect: dialectField, url: urlField, readOnly: z.boolean().optional() })
  .superRefine((b, ctx) => checkUrl(b.dialect, b.url, ctx));

export const testInputBody = z
  .strictObject({ name: connectionNameField.optional(), dialect: dialectField, url: urlField, readOnly: z.boolean().optional() })
  .superRefine((b, ctx) => checkUrl(b.dialect, b.url, ctx));

export const patchConnectionBody = z.strictObject({ name: connectionNameField.optional(), url: urlField.optional(), readOnly: z.boolean().optional() });

export const testResultBody = z.strictObject({ data: z.strictObject({ ok: z.literal(true), latencyMs: z.number(), serverVersion: z.string() }) });
export const connectionBody = z.strictObject({ data: z.strictObject({ connection: connectionSchema }) });

/** What POST /connections did right after saving: read the schema, so /data works at once. */
export const introspectionOutcomeSchema = z
  .strictObject({
    ok: z.boolean(),
    /** The snapshot stored (as POST /connections/{id}/introspect would answer it); null when it failed. */
    snapshot: z.strictObject({ id: z.string(), tableCount: z.number().int(), viewCount: z.number().int(), columnCount: z.number().int() }).nullable(),
    /** Why it failed (the connection is saved anyway; POST /connections/{id}/introspect tries again); null when it worked. */
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'ConnectionIntrospection' });
export type IntrospectionOutcome = z.infer<typeof introspectionOutcomeSchema>;

export const createdConnectionBody = z.strictObject({
  data: z.strictObject({
    connection: connectionSchema,
    /** null when no plugin reads schemas (the schema plugin is not loaded). */
    introspection: introspectionOutcomeSchema.nullable(),
  }),
});

export const MIN_STATEMENT_TIMEOUT_MS = 1000;
export const MAX_STATEMENT_TIMEOUT_MS = 600_000;
export const MAX_POOL_SIZE = 20;

/** Connection-level settings; null (or left out of a PUT) means the default. */
export const overridesSchema = z
  .strictObject({
    label: z.string().trim().min(1).max(120).nullable().describe('a display name for the dashboard; the name stays the identifier'),
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'a colour like #3b82f6')
      .nullable()
      .describe('stored lower-case'),
    defaultSchema: z.string().min(1).max(63).nullable().describe('PostgreSQL only: the search_path of every session'),
    statementTimeoutMs: z
      .number()
      .int()
      .min(MIN_STATEMENT_TIMEOUT_MS)
      .max(MAX_STATEMENT_TIMEOUT_MS)
      .nullable()
      .describe('PostgreSQL and MySQL only; default 30000'),
    poolSize: z.number().int().min(1).max(MAX_POOL_SIZE).nullable().describe('PostgreSQL and MySQL only; default 5'),
  })
  .meta({ id: 'ConnectionOverrides' });
export type Overrides = z.output<typeof overridesSchema>;
export const NO_OVERRIDES: Overrides = { label: null, color: null, defaultSchema: null, statementTimeoutMs: null, poolSize: null };

export const overridesInputBody = z.strictObject({
  label: overridesSchema.shape.label.optional(),
  color: overridesSchema.shape.color.optional(),
  defaultSchema: overridesSchema.shape.defaultSchema.optional(),
  statementTimeoutMs: overridesSchema.shape.statementTimeoutMs.optional(),
  poolSize: overridesSchema.shape.poolSize.optional(),
});

export const effectiveSettingsSchema = z
  .strictObject({
    poolSize: z.number().int(),
    statementTimeoutMs: z.number().int().nullable().describe('null for SQLite, which has no statement timeout'),
    connectTimeoutMs: z.number().int(),
    defaultSchema: z.string().nullable(),
  })
  .meta({ id: 'ConnectionEffectiveSettings' });

export const overridesBody = z.strictObject({
  data: z.strictObject({ connectionId: z.string(), overrides: overridesSchema, effective: effectiveSettingsSchema }),
});
