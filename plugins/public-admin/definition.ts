import { z } from 'zod';
import { FILTER_OPS, PUBLIC_METHODS, type EndpointDefinition } from './provides.js';

/** Bounds of one definition: wide enough for a wide table, small enough for one meta row. */
export const DEFINITION_LIMITS = { columns: 2000, filters: 50, inValues: 500, ref: 120 } as const;
export const DEFAULT_RATE_LIMIT = 120;
export const DEFAULT_TIME_ZONE = 'UTC';

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
const interval = z.tuple([clock, clock]).refine(([a, b]) => a < b, { message: 'An interval opens before it closes.' });
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
 * What an admin may set (POST and PATCH bodies). The seed spells `allow_cascade` in the JSON
 * definition; `allowCascade` is taken too, since every other key is camelCase.
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

const optionalFields = Object.fromEntries(Object.entries(definitionFields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof definitionFields]: z.ZodOptional<(typeof definitionFields)[K]>;
};

export const createScopeBody = z.strictObject({ ref: refField, connectionId: z.string().min(1).max(64), table: z.string().min(1).max(255), ...optionalFields });
export const patchScopeBody = z.strictObject({ ref: refField.optional(), ...optionalFields });
export type CreateScopeBody = z.infer<typeof createScopeBody>;
export type PatchScopeBody = z.infer<typeof patchScopeBody>;
export type DefinitionPatch = Omit<PatchScopeBody, 'ref' | 'allow_cascade' | 'allowCascade'> & { allowCascade?: boolean };

/** Folds the two spellings of allow_cascade into one. */
export function definitionPatch(body: PatchScopeBody | CreateScopeBody): DefinitionPatch {
  const { allow_cascade, allowCascade, ...rest } = body as PatchScopeBody & Record<string, unknown>;
  delete (rest as Record<string, unknown>).ref;
  delete (rest as Record<string, unknown>).connectionId;
  delete (rest as Record<string, unknown>).table;
  const cascade = allow_cascade ?? allowCascade;
  return { ...(rest as DefinitionPatch), ...(cascade === undefined ? {} : { allowCascade: cascade }) };
}

/** The part of an EndpointDefinition a stored row keeps as JSON; the rest comes from the row and the schema. */
export type StoredDefinition = Pick<
  EndpointDefinition,
  | 'methods'
  | 'columns'
  | 'writable'
  | 'defaults'
  | 'filters'
  | 'filterable'
  | 'searchable'
  | 'orderable'
  | 'identity'
  | 'sensitive'
  | 'allowCascade'
  | 'shape'
  | 'rateLimit'
  | 'timeZone'
  | 'serviceRole'
  | 'booking'
  | 'window'
  | 'needsSession'
>;

export const storedDefinitionSchema = z.object({
  methods: z.array(publicMethod),
  columns: z.array(z.string()),
  writable: z.array(z.string()),
  defaults: z.record(z.string(), z.unknown()),
  filters: z.array(filterSchema),
  filterable: z.array(z.string()),
  searchable: z.array(z.string()),
  orderable: z.array(z.string()),
  identity: z.array(z.string()),
  sensitive: z.array(z.string()),
  allowCascade: z.boolean(),
  shape: z.enum(['wrapped', 'array', 'single']),
  rateLimit: z.number().int(),
  timeZone: z.string(),
  serviceRole: z.boolean(),
  booking: bookingSchema.nullable(),
  window: windowSchema.nullable(),
  needsSession: z.boolean(),
});

const STORED_KEYS = Object.keys(storedDefinitionSchema.shape) as Array<keyof StoredDefinition>;

/** What the row's `definition` column holds: the definition's own rules, nothing the row or the schema says. */
export function storedPart(def: EndpointDefinition): StoredDefinition {
  return Object.fromEntries(STORED_KEYS.map((key) => [key, def[key]])) as StoredDefinition;
}
