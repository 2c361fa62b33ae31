import { z } from 'zod';

/**
 * The definition of a public endpoint (seed: "The JSON definition accepts these keys …"). One
 * schema for both places that declare endpoints: the public API's admin routes (an operator's
 * endpoint) and addon.json's `endpoints` (an app's endpoint over its own tables).
 */
export const PUBLIC_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH'] as const;
export type PublicMethod = (typeof PUBLIC_METHODS)[number];

/**
 * The D12 filter operators. `in` takes an array; `null` takes a boolean (true = IS NULL). The
 * instance's engine spells the same list (engine/rows/query-params.ts); a test keeps them equal.
 */
export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'null'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Bounds of one definition: wide enough for a wide table, small enough for one meta row. */
export const DEFINITION_LIMITS = { columns: 2000, filters: 50, inValues: 500, ref: 120 } as const;

const column = z.string().min(1).max(255);
const columnList = z.array(column).max(DEFINITION_LIMITS.columns);
const scalar = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);

export const publicMethod = z.enum(PUBLIC_METHODS);
export const methodList = z
  .array(publicMethod)
  .max(PUBLIC_METHODS.length)
  .refine((m) => new Set(m).size === m.length, { message: 'Each method at most once.' });

/**
 * An endpoint name as it appears in `/public/records/{ref}`: no slash (it is one path segment),
 * no control characters, no surrounding spaces. Generated refs are table refs, which may hold
 * any letter (`café`), so this is deliberately not an ASCII pattern.
 */
export const refField = z
  .string()
  .min(1)
  .max(DEFINITION_LIMITS.ref)
  .refine((s) => !/[/\\?#%\u0000-\u001f\u007f]/.test(s) && s.trim() === s, {
    message: 'A ref is one path segment: no slash, backslash, ?, #, %, control characters or surrounding spaces.',
  });

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
export const timeZoneField = z.string().min(1).max(64).refine(isTimeZone, { message: 'Not an IANA time zone (e.g. Europe/Paris).' });

export const filterSchema = z
  .strictObject({ column, op: z.enum(FILTER_OPS), value: z.union([scalar, z.array(scalar).min(1).max(DEFINITION_LIMITS.inValues)]) })
  .superRefine((f, ctx) => {
    const isArray = Array.isArray(f.value);
    if (f.op === 'in' && !isArray) ctx.addIssue({ code: 'custom', path: ['value'], message: '`in` takes an array of values.' });
    if (f.op === 'null' && typeof f.value !== 'boolean')
      ctx.addIssue({ code: 'custom', path: ['value'], message: '`null` takes true (IS NULL) or false (IS NOT NULL).' });
    if (f.op !== 'in' && f.op !== 'null' && (isArray || f.value === null))
      ctx.addIssue({ code: 'custom', path: ['value'], message: `\`${f.op}\` takes one non-null value; use op null for NULL.` });
    if (f.op === 'like' && typeof f.value !== 'string') ctx.addIssue({ code: 'custom', path: ['value'], message: '`like` takes a string.' });
  });

const clock = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'A time of day HH:MM (24:00 ends a day).');
/**
 * An opening: from a time to a later one, or to one before it, which runs past midnight into the
 * next day (a bar's 18:00–02:00). It cannot close when it opens, nor open at the day's end.
 */
const interval = z.tuple([clock, clock]).refine(([a, b]) => a !== b && a !== '24:00', {
  message: 'An interval opens and closes at different times (a close before the opening runs past midnight).',
});
const day = z.array(interval).max(12);
export const openingHoursSchema = z.strictObject({
  mon: day.optional(),
  tue: day.optional(),
  wed: day.optional(),
  thu: day.optional(),
  fri: day.optional(),
  sat: day.optional(),
  sun: day.optional(),
});

export const bookingSchema = z.strictObject({
  timeColumn: column,
  partyColumn: column.nullable().default(null),
  capacity: z.number().int().min(1).max(100_000),
  slotMinutes: z.number().int().min(5).max(1440),
  openingHours: openingHoursSchema,
  windowDays: z.number().int().min(1).max(730).default(60),
  cancelBeforeMinutes: z.number().int().min(0).max(525_600).default(120),
  emailColumn: column.nullable().default(null),
  codeColumn: column.nullable().default(null),
  localeColumn: column.nullable().default(null),
});

export const windowSchema = z.strictObject({ column, opensBeforeMinutes: z.number().int().min(0).max(525_600) });

/**
 * What a definition may set. The seed spells `allow_cascade` in the JSON definition;
 * `allowCascade` is taken too, since every other key is camelCase.
 */
export const definitionFields = {
  methods: methodList,
  columns: columnList,
  writable: columnList,
  defaults: z.record(column, scalar).refine((r) => Object.keys(r).length <= DEFINITION_LIMITS.columns, { message: 'Too many defaults.' }),
  filters: z.array(filterSchema).max(DEFINITION_LIMITS.filters),
  filterable: columnList,
  searchable: columnList,
  orderable: columnList,
  identity: z.array(column).max(10),
  sensitive: columnList,
  allow_cascade: z.boolean(),
  allowCascade: z.boolean(),
  shape: z.enum(['wrapped', 'array', 'single']),
  rateLimit: z.number().int().min(1).max(100_000),
  timeZone: timeZoneField,
  serviceRole: z.boolean(),
  booking: bookingSchema.nullable(),
  window: windowSchema.nullable(),
  needsSession: z.boolean(),
};

export const optionalDefinitionFields = Object.fromEntries(Object.entries(definitionFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof definitionFields]: z.ZodOptional<(typeof definitionFields)[K]>;
};
