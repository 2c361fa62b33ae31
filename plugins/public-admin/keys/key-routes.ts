import { z } from 'zod';
import {
  AppError,
  cursorField,
  dataOf,
  encodeCursor,
  errorEnvelopeSchema,
  type Kernel,
  listQuery,
  noBody,
  okSchema,
  reply,
  route,
} from '../../../kernel/api.js';
import { PUBLIC_API_READ, PUBLIC_API_WRITE } from '../access.js';
import { createKey } from './key-ops.js';
import type { StoredKey } from './keys.js';
import { createKeyBody, publicKeyListItemSchema, publicKeySchema, toKey } from './schemas.js';
import { publicAdminServiceRef } from '../service.js';

const service = (kernel: Kernel) => kernel.plugin(publicAdminServiceRef);
const tags = ['Public keys'];
const idParams = z.object({ id: z.string().min(1).max(64) });
const withSecret = dataOf(z.strictObject({ key: publicKeySchema, secret: z.string() }));

/** What the audit trail says of a key: never the secret, only what the list shows. */
const described = (k: StoredKey) => ({ name: k.name, kind: k.kind, prefix: k.prefix, grants: k.grants, expiresAt: k.expiresAt });

export const keyRoutes = [
  route({
    method: 'GET',
    url: '/public-keys',
    tags,
    summary: 'Public keys (not revoked; expired ones marked), in creation order, with their requests in the last 24 hours',
    permission: PUBLIC_API_READ,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.strictObject({ id: z.string().min(1).max(64) })) }),
      response: { 200: dataOf(z.strictObject({ keys: z.array(publicKeyListItemSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      const s = service(kernel);
      const page = await s.keys.list(query.limit, query.cursor?.id);
      const usage = await s.usage.last24h(page.keys.map((k) => k.id));
      const now = kernel.now();
      const keys = page.keys.map((k) => ({
        ...toKey(k),
        expires: k.expires,
        expired: k.expiresAt !== null && k.expiresAt <= now,
        revealable: k.revealable,
        suspended: k.suspended,
        appKey: k.appKey ? { addonKey: k.appKey.addonKey, peak: k.appKey.peak, instance: k.appKey.instance } : null,
        requests24h: usage.get(k.id) ?? 0,
      }));
      return { data: { keys, nextCursor: page.nextId ? encodeCursor({ id: page.nextId }) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/public-keys',
    tags,
    summary: 'Create a browser (adm_pub_) or server (adm_srv_) key granting endpoints and methods; the answer carries the secret',
    description:
      'Each grant names an endpoint (ref) and the methods the key may use on it: an unknown ref answers 400 at body.grants.N.ref, a ' +
      'service-role endpoint granted to a browser key 400 at the same place, a method the endpoint does not offer 400 at ' +
      'body.grants.N.methods.M. Granting a virtual (generated) endpoint stores it. A server key is shown only in this answer.',
    permission: PUBLIC_API_WRITE,
    schema: { body: createKeyBody, response: { 201: withSecret } },
    handler: async ({ kernel, body, principal, audit }) => {
      const { key, secret } = await createKey(service(kernel), body, principal?.userId ?? null);
      audit({ action: 'public-keys.create', target: { type: 'publicKey', id: key.id }, diff: described(key) });
      return reply(201, { data: { key: toKey(key), secret } });
    },
  }),
  route({
    method: 'GET',
    url: '/public-keys/:id/reveal',
    tags,
    summary: "Show a browser key's secret again",
    description: 'Server keys are shown once: 409 PUBLIC_KEY_NOT_REVEALABLE (rotate for a new secret). Unknown or revoked: 404. Every reveal is audited.',
    permission: PUBLIC_API_WRITE,
    schema: { params: idParams, response: { 200: withSecret } },
    handler: async ({ kernel, params, auditNow }) => {
      const { key, secret } = await service(kernel).keys.reveal(params.id);
      await auditNow({ action: 'public-keys.reveal', target: { type: 'publicKey', id: key.id }, diff: { name: key.name, prefix: key.prefix } });
      return { data: { key: toKey(key), secret } };
    },
  }),
  route({
    method: 'POST',
    url: '/public-keys/:id/rotate',
    tags,
    summary: 'Give a key a new secret; the old one stops at once',
    description: 'Id, name and grants stay; the lifetime (30d, 90d, never) starts again from now. Unknown or revoked: 404.',
    permission: PUBLIC_API_WRITE,
    schema: { params: idParams, body: noBody, response: { 200: withSecret } },
    handler: async ({ kernel, params, audit }) => {
      const s = service(kernel);
      const before = await s.keys.get(params.id);
      const { key, secret } = await s.keys.rotate(params.id);
      await s.revoked(key.id);
      audit({
        action: 'public-keys.rotate',
        target: { type: 'publicKey', id: key.id },
        diff: { before: { prefix: before.prefix }, after: { prefix: key.prefix, expiresAt: key.expiresAt } },
      });
      return { data: { key: toKey(key), secret } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/public-keys/:id',
    tags,
    summary: 'Revoke a key: refused from the very next request (other replicas within 5 seconds)',
    description: "Unknown or already revoked: 404. An app's key goes with its app: 409 PUBLIC_KEY_APP_OWNED (disable or remove the add-on).",
    permission: PUBLIC_API_WRITE,
    schema: { params: idParams, response: { 200: okSchema, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, params, audit }) => {
      const s = service(kernel);
      const owned = await s.keys.get(params.id);
      if (owned.appKey) throw new AppError('PUBLIC_KEY_APP_OWNED', { params: { addonKey: owned.appKey.addonKey } });
      const key = await s.keys.revoke(params.id);
      await s.revoked(key.id);
      audit({ action: 'public-keys.revoke', target: { type: 'publicKey', id: key.id }, diff: described(key) });
      return { data: { ok: true as const } };
    },
  }),
];
