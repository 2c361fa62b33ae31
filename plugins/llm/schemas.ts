import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';

export const LLM_MODES = ['off', 'provider', 'manual'] as const;
export const RUN_STATES = ['prompted', 'running', 'answered', 'parsed', 'invalid', 'applied', 'undone', 'failed', 'discarded'] as const;
export type RunState = (typeof RUN_STATES)[number];

export const DEFAULT_LIMITS = { timeoutMs: 60_000, maxPromptChars: 100_000, maxChanges: 500, retentionDays: 30 };

export const limitsSchema = z
  .strictObject({
    timeoutMs: z.number().int().min(1000).max(120_000).meta({ description: 'One provider call, at most (the job itself stops at 120 s).' }),
    maxPromptChars: z.number().int().min(1000).max(1_000_000).meta({ description: 'The prompt is refused (400) beyond this many characters.' }),
    maxChanges: z.number().int().min(1).max(500).meta({ description: 'A change set with more changes is invalid.' }),
    retentionDays: z.number().int().min(1).max(365).meta({ description: 'Runs (prompts and answers) are deleted this many days after they were made.' }),
  })
  .meta({ id: 'LlmLimits' });
export type Limits = z.infer<typeof limitsSchema>;

const headerName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'A header name (token characters).')
  .refine((n) => !['host', 'content-length', 'content-type', 'connection', 'transfer-encoding', 'authorization'].includes(n.toLowerCase()), {
    message: 'This header is set by the instance (the API key goes as Authorization).',
  });

export const configInput = z.strictObject({
  mode: z.enum(LLM_MODES),
  provider: z
    .strictObject({
      baseUrl: z
        .string()
        .min(1)
        .max(2000)
        .meta({ description: 'The OpenAI-compatible API root, e.g. `http://127.0.0.1:11434/v1` or `https://api.openai.com/v1`.' }),
      model: z.string().min(1).max(200),
      apiKey: z
        .string()
        .min(1)
        .max(4000)
        .nullable()
        .optional()
        .meta({ description: 'Sent as `Authorization: Bearer …`. Absent keeps the stored key, null clears it. Never returned.' }),
      headers: z
        .record(headerName, z.string().max(4000).nullable())
        .optional()
        .refine((h) => h === undefined || Object.keys(h).length <= 20, { message: 'At most 20 headers.' })
        .meta({
          description:
            'Extra request headers. Absent keeps them all; given, it is the whole set: a name with a string sets that value, a name with null keeps its stored value. Values are sealed and never returned.',
        }),
    })
    .nullable()
    .optional(),
  limits: limitsSchema.partial().optional(),
});
export type ConfigInput = z.infer<typeof configInput>;

export const configView = z
  .strictObject({
    mode: z.enum(LLM_MODES),
    provider: z.strictObject({ baseUrl: z.string(), model: z.string(), apiKeySet: z.boolean(), headers: z.array(z.string()) }).nullable(),
    limits: limitsSchema,
  })
  .meta({ id: 'LlmConfig' });
export type ConfigView = z.infer<typeof configView>;
export const configBody = dataOf(configView);

export const testBody = dataOf(z.strictObject({ ok: z.literal(true), latencyMs: z.number(), model: z.string() }));
export const modelsBody = dataOf(z.strictObject({ models: z.array(z.strictObject({ id: z.string() })) }));

export const summarySchema = z
  .strictObject({ insert: z.number(), update: z.number(), delete: z.number(), views: z.number(), pages: z.number(), invalid: z.number() })
  .meta({ id: 'LlmDiffSummary' });
export type Summary = z.infer<typeof summarySchema>;

export const madeSchema = z
  .strictObject({
    pages: z.array(z.strictObject({ pageId: z.string(), slug: z.string(), title: z.string() })),
    views: z.array(z.strictObject({ pageId: z.string(), viewId: z.string(), name: z.string() })),
  })
  .meta({ id: 'LlmRunMade', description: 'The pages and shared views an applied run made (an undo deletes them while unchanged).' });
export type Made = z.infer<typeof madeSchema>;

export const runSchema = z
  .strictObject({
    id: z.string(),
    state: z.enum(RUN_STATES),
    mode: z.enum(['provider', 'manual']),
    request: z.string(),
    connectionId: z.string(),
    tables: z.array(z.string()),
    includeSampleRows: z.number(),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    problems: z.array(z.string()).meta({ description: 'Why the answer is invalid (state invalid); empty otherwise.' }),
    summary: summarySchema.nullable(),
    jobId: z.string().nullable(),
    appliedAt: z.number().nullable(),
    undoExpiresAt: z.number().nullable(),
    undoToken: z.string().optional().meta({
      description:
        'GET /llm/runs and GET /llm/runs/{id} only: the undo token, while the run is applied and the token unexpired, to who applied it and to llm.admin (decisions LL10).',
    }),
    made: madeSchema,
    createdBy: z.string().meta({ description: 'The user (or API key) id that made the run.' }),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'LlmRun' });
export type Run = z.infer<typeof runSchema>;
export const runBody = dataOf(z.strictObject({ run: runSchema }));

export const runIdParams = z.strictObject({ id: z.string().min(1).max(64) });

export const createRunInput = z.strictObject({
  request: z.string().min(1).max(4000),
  connectionId: z.string().min(1).max(64),
  tables: z.array(z.string().min(1).max(255)).min(1).max(20).optional().meta({ description: 'Table refs; absent: the tables the caller reads, at most 20.' }),
  includeSampleRows: z.number().int().min(0).max(20).default(0),
  mode: z.enum(['provider', 'manual']).optional().meta({ description: 'Default: the configured mode.' }),
});

export const promptBody = dataOf(
  z.strictObject({
    messages: z.array(z.strictObject({ role: z.enum(['system', 'user']), content: z.string() })),
    text: z.string().meta({ description: 'The messages as one text, for manual mode: paste it into any chat model.' }),
    chars: z.number(),
  }),
);

export const responseInput = z.strictObject({
  text: z
    .string()
    .min(1)
    .max(256 * 1024),
});

const row = z.record(z.string(), z.unknown());
export const diffChangeSchema = z
  .strictObject({
    index: z.number(),
    op: z.enum(['insert', 'update', 'delete', 'create-view', 'create-page']),
    table: z.string().nullable(),
    key: z.string().optional().meta({ description: 'The record id of the row (as /data addresses it).' }),
    before: row.nullable().optional(),
    after: row.nullable().optional(),
    valid: z.boolean(),
    problems: z.array(z.string()),
  })
  .meta({ id: 'LlmDiffChange' });
export type DiffChange = z.infer<typeof diffChangeSchema>;
export const diffSchema = z.strictObject({ hash: z.string(), changes: z.array(diffChangeSchema), summary: summarySchema }).meta({ id: 'LlmDiff' });
export type Diff = z.infer<typeof diffSchema>;
export const diffBody = dataOf(z.strictObject({ diff: diffSchema }));

export const applyInput = z.strictObject({ diffHash: z.string().min(1).max(128), skipInvalid: z.boolean().optional() });
export const applyBody = dataOf(
  z.strictObject({
    run: runSchema,
    undoToken: z.string(),
    applied: z.strictObject({ insert: z.number(), update: z.number(), delete: z.number(), views: z.number(), pages: z.number(), skipped: z.number() }),
  }),
);
export const undoParams = z.strictObject({ id: z.string().min(1).max(64), token: z.string().min(1).max(200) });
