import { z } from 'zod';

/** D6 cursors are opaque to clients: base64url JSON of the last row's sort key. */
export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** A query field that decodes a cursor into `key`, or fails validation at `query.cursor`. */
export function cursorField<T>(key: z.ZodType<T>) {
  return z
    .string()
    .min(1)
    .max(500)
    .transform((raw, ctx) => {
      try {
        const parsed = key.safeParse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
        if (parsed.success) return parsed.data;
      } catch {
        // fall through to the issue below
      }
      ctx.addIssue({ code: 'custom', message: 'Not a cursor this list issued; pass nextCursor from a previous page.' });
      return z.NEVER;
    })
    .optional();
}
