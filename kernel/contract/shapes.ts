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

const isRowObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A row of an operator's table in a response: column name → wire value. A check, not a parse:
 * a parse copies every row into a new object (the largest allocation of a list), and a copy made
 * by assignment loses a column called `__proto__` (it sets the copy's prototype instead).
 * `meta` is what the OpenAPI document says of it (an object with any properties).
 */
export function rowObject(meta: { id?: string; description: string }) {
  return z
    .custom<Record<string, unknown>>(isRowObject, { message: 'Expected a row object.' })
    .meta({ ...meta, type: 'object', additionalProperties: true } as Record<string, unknown>);
}

/** An array of rows checked in one pass (see rowObject); `items` is the row's schema in the document. */
export function rowObjects(items: Record<string, unknown>, description?: string) {
  return z
    .custom<Record<string, unknown>[]>((v) => Array.isArray(v) && v.every(isRowObject), { message: 'Expected an array of row objects.' })
    .meta({ type: 'array', items, ...(description ? { description } : {}) } as Record<string, unknown>);
}

/**
 * The record ids of a page, beside its rows: checked in one pass like rowObjects, not copied
 * (a parsed array is a new array and a result per item, on every list).
 */
export function recordIdList(description: string) {
  return z
    .custom<(string | null)[]>((v) => Array.isArray(v) && v.every((id) => id === null || typeof id === 'string'), {
      message: 'Expected an array of record ids.',
    })
    .meta({ type: 'array', items: { type: ['string', 'null'] }, description } as Record<string, unknown>);
}
