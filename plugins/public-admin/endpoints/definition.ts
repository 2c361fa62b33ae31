import { z } from 'zod';
import {
  bookingSchema,
  definitionFields,
  filterSchema,
  optionalDefinitionFields,
  publicMethod,
  refField,
  windowSchema,
} from '../../../addons-sdk/src/manifest/endpoint.js';
import type { EndpointDefinition, StoredDefinition } from '../provides.js';

export type { StoredDefinition };

export {
  DEFINITION_LIMITS,
  bookingSchema,
  definitionFields,
  filterSchema,
  isTimeZone,
  methodList,
  openingHoursSchema,
  publicMethod,
  refField,
  timeZoneField,
  windowSchema,
} from '../../../addons-sdk/src/manifest/endpoint.js';
export const DEFAULT_RATE_LIMIT = 120;
export const DEFAULT_TIME_ZONE = 'UTC';
const optionalFields = optionalDefinitionFields;

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

/**
 * The one list of a definition's own rules (what a stored row keeps as JSON): `StoredDefinition`
 * (provides.ts) picks these keys, `storedPart` copies them, the scope schema of the API spreads
 * them (`wireDefinitionShape`), and the SDK's body fields must name the same keys (checked below).
 */
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
export type StoredKey = keyof typeof storedDefinitionSchema.shape;

type StoredShape = typeof storedDefinitionSchema.shape;
/** The stored rules as the API spells them (allowCascade is `allow_cascade` on the wire, seed), in the same order. */
export type WireDefinitionShape = { [K in keyof StoredShape as K extends 'allowCascade' ? 'allow_cascade' : K]: StoredShape[K] };
export const wireDefinitionShape = Object.fromEntries(
  Object.entries(storedDefinitionSchema.shape).map(([key, field]) => [key === 'allowCascade' ? 'allow_cascade' : key, field]),
) as WireDefinitionShape;

// The SDK's body fields (addon.json and the API's bodies) are the stored keys, plus the wire spelling of allowCascade.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const bodyFieldsMatchStoredKeys: SameKeys<keyof typeof definitionFields, StoredKey | 'allow_cascade'> = true;
void bodyFieldsMatchStoredKeys;

const STORED_KEYS = Object.keys(storedDefinitionSchema.shape) as StoredKey[];

/** What the row's `definition` column holds: the definition's own rules, nothing the row or the schema says. */
export function storedPart(def: EndpointDefinition): StoredDefinition {
  return Object.fromEntries(STORED_KEYS.map((key) => [key, def[key]])) as StoredDefinition;
}
