import { z } from 'zod';
import { methodList, publicMethod } from '../endpoints/definition.js';
import type { StoredKey } from './keys.js';

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
    suspended: z.boolean().describe('an app key stopped with its disabled app (D27): it answers 401 until the app is enabled again'),
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
