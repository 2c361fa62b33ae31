import { z } from 'zod';

/** `{ data: T }`, the wrapper of every authenticated response. */
export function dataOf<T extends z.ZodType>(inner: T) {
  return z.strictObject({ data: inner });
}

export const okSchema = dataOf(z.strictObject({ ok: z.literal(true) }));

export const errorEnvelopeSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      params: z.record(z.string(), z.unknown()).optional(),
      issues: z.array(z.strictObject({ path: z.string(), code: z.string(), message: z.string() })).optional(),
      requestId: z.string(),
    }),
  })
  .meta({ id: 'Error' });

/** D6 list query: `limit` (1..500, default 50) and an opaque `cursor`. */
export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).max(500).optional(),
});
