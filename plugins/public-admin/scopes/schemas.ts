import { z } from 'zod';
import type { Catalog, CatalogEntry } from '../endpoints/catalog.js';
import { bookingSchema, filterSchema, methodList, publicMethod, windowSchema } from '../endpoints/definition.js';
import type { StoredKey } from '../keys/keys.js';

export const scopeSchema = z
  .strictObject({
    id: z.string().nullable().describe('null while the endpoint is virtual (generated, never granted or edited)'),
    ref: z.string(),
    connectionId: z.string(),
    table: z.string().describe('the table ref (SC2)'),
    virtual: z.boolean(),
    generated: z.boolean().describe("the table's generated endpoint (stored or not), as opposed to an extra endpoint"),
    edited: z.boolean(),
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
    allow_cascade: z.boolean(),
    shape: z.enum(['wrapped', 'array', 'single']),
    rateLimit: z.number().int(),
    timeZone: z.string(),
    serviceRole: z.boolean(),
    booking: bookingSchema.nullable(),
    window: windowSchema.nullable(),
    needsSession: z.boolean(),
    pk: z.array(z.string()),
    keyFill: z.enum(['database', 'uuid']).nullable(),
    addonKey: z.string().nullable(),
    offered: z.array(publicMethod).describe('the methods the table could offer this endpoint as defined'),
    problems: z.array(
      z.strictObject({ reason: z.enum(['table-missing', 'column-missing', 'column-secret', 'column-personal']), column: z.string().optional() }),
    ),
    createdAt: z.number().nullable(),
    updatedAt: z.number().nullable(),
  })
  .meta({ id: 'PublicScope' });
export type PublicScope = z.infer<typeof scopeSchema>;

export function toScope(entry: CatalogEntry, offered: PublicScope['offered']): PublicScope {
  const { allowCascade, ...d } = entry.def;
  return {
    ...d,
    allow_cascade: allowCascade,
    edited: entry.edited,
    offered,
    problems: entry.problems,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

export type { Catalog };

export const grantSchema = z.strictObject({ ref: z.string(), methods: z.array(publicMethod) }).meta({ id: 'PublicKeyGrant' });

/** Exactly D19's key. */
export const publicKeySchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['browser', 'server']),
    prefix: z.string().describe('the first 12 characters of the secret'),
    grants: z.array(grantSchema),
    expiresAt: z.number().nullable(),
    createdAt: z.number(),
  })
  .meta({ id: 'PublicKey' });

/** A key on the keys page: D19's fields and what the page shows besides. */
export const publicKeyListItemSchema = publicKeySchema
  .extend({
    expires: z.enum(['30d', '90d', 'never']),
    expired: z.boolean(),
    revealable: z.boolean().describe('browser keys can be revealed again; server keys were shown once'),
    suspended: z.boolean().describe("an app key stopped with its disabled app (D27): it answers 401 until the app is enabled again"),
    appKey: z
      .strictObject({
        addonKey: z.string(),
        peak: z.number().int(),
        instance: z.string().nullable().describe("The app's named instance (D28) the key belongs to; null for the app's own key."),
      })
      .nullable(),
    requests24h: z.number().int().describe('requests in the last 24 hours; approximate (kept in memory, written every minute)'),
  })
  .meta({ id: 'PublicKeyListItem' });

export function toKey(k: StoredKey): z.infer<typeof publicKeySchema> {
  return { id: k.id, name: k.name, kind: k.kind, prefix: k.prefix, grants: k.grants, expiresAt: k.expiresAt, createdAt: k.createdAt };
}

export const createKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  kind: z.enum(['browser', 'server']),
  expires: z.enum(['30d', '90d', 'never']),
  grants: z
    .array(z.strictObject({ ref: z.string().min(1).max(255), methods: methodList.min(1) }))
    .min(1)
    .max(500),
});

export const LOCALE = /^[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}$/;
export const localeField = z.string().min(2).max(35).regex(LOCALE, 'A locale like en, de or pt_BR.');
export const templateKeyField = z.string().min(1).max(100);

export const templateSchema = z
  .strictObject({
    key: z.string(),
    locale: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string().nullable(),
    source: z.enum(['edited', 'default', 'fallback']),
    resolvedLocale: z.string(),
    edited: z.boolean(),
    variables: z.array(z.string()),
    updatedAt: z.number().nullable(),
  })
  .meta({ id: 'EmailTemplate' });

export const templateSummarySchema = z
  .strictObject({ key: z.string(), locale: z.string(), edited: z.boolean(), hasDefault: z.boolean(), subject: z.string(), updatedAt: z.number().nullable() })
  .meta({ id: 'EmailTemplateSummary' });

export const putTemplateBody = z.strictObject({
  subject: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .refine((s) => !/[\r\n]/.test(s), { message: 'A subject is one line.' }),
  text: z.string().min(1).max(100_000),
  html: z.string().max(200_000).nullable().optional(),
});

export const testSendBody = z.strictObject({
  to: z.email().max(320),
  locale: localeField.optional(),
  vars: z.record(z.string().min(1).max(64), z.union([z.string().max(2000), z.number()])).optional(),
});
