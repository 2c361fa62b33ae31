import { z } from 'zod';
import { addonKeyField } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, authenticate, dataOf, errorEnvelopeSchema, type Json, type Kernel, route } from '../../../kernel/api.js';
import type { FastifyRequest } from 'fastify';
import { publicKeyOrStaffAudience, type PublicCaller } from '../../public-api/provides.js';
import { DEFAULT_INSTANCE, instanceIdField } from '../lifecycle/instances.js';
import { addonServiceRef } from '../service.js';

export const ADDONS_USE = 'add-ons.use';
/**
 * Who may call an app's action: its own app key (the public API's gate has checked the key, its
 * origin and its address, and charged the call as a write to the key's budgets: AO32), or staff
 * holding add-ons.use: a signed-in person, or an admin API key (`adm_sk_…`) whose role has it
 * (the gate lets both through to here with no caller).
 */
async function caller(
  kernel: Kernel,
  req: FastifyRequest,
  publicCaller: PublicCaller | null,
  key: string,
): Promise<{ who: 'app' | 'staff'; instance: string | null }> {
  if (publicCaller) {
    if (publicCaller.key.appKey?.addonKey !== key) throw new AppError('PUBLIC_KEY_INVALID');
    // An instance's key runs the action for its instance alone (D28).
    return { who: 'app', instance: publicCaller.key.appKey.instance };
  }
  const auth = await authenticate(req, kernel.principals, kernel.config);
  if (!auth) throw new AppError('AUTH_REQUIRED');
  if (!auth.principal.permissions.has(ADDONS_USE)) throw new AppError('FORBIDDEN', { params: { permission: ADDONS_USE } });
  return { who: 'staff', instance: null };
}

export const actionRoutes = [
  route({
    method: 'POST',
    url: '/public/apps/:key/actions/:name',
    summary: "Call an app's action",
    description:
      "Runs an action the add-on declares (addon.json `actions`) in its sandbox with `input`, and answers what it returned. Callers: the app's own key (`Authorization: Bearer adm_pub_…`, 401 PUBLIC_KEY_INVALID for any other public key), or staff holding add-ons.use: a signed-in person or an API key (`Bearer adm_sk_…`) whose role has it (403 FORBIDDEN otherwise); an action the add-on lists in `staffActions` refuses the app key (403 ADDON_ACTION_STAFF_ONLY). " +
      "The action may refuse the call with `ctx.refuse(status, code, message, params)`: a 4xx other than 401 and 407, in the standard envelope with the add-on's own code (not one of the instance's). " +
      "The app key's call counts as one write against the key's and the visitor's write budgets (peak × 300 a minute, a twelfth per visitor): over them 429 PUBLIC_RATE_LIMITED with Retry-After. " +
      'Limits of the sandbox apply: 504 ADDON_TIMEOUT, 502 ADDON_MEMORY_LIMIT / ADDON_FAILED / ADDON_CRASHED, 429 ADDON_HOST_CALLS; 404 ADDON_HANDLER_MISSING for an action it does not declare, ADDON_NOT_FOUND when the add-on is not installed and enabled.',
    // Charged as a write (AO32) by the gate, before the sandbox is woken.
    audience: publicKeyOrStaffAudience.with({ charge: 'write' }),
    tags: ['Add-ons'],
    bodyLimit: 64 * 1024,
    schema: {
      params: z.strictObject({ key: addonKeyField, name: z.string().min(1).max(64) }),
      query: z.strictObject({
        instance: instanceIdField
          .optional()
          .describe("Staff only: the app instance (D28) to run the action for (default: the app's own). An app key always runs it for its own instance."),
      }),
      body: z.strictObject({ input: z.json().optional() }).optional(),
      response: {
        200: dataOf(z.strictObject({ result: z.json() })),
        400: errorEnvelopeSchema.describe("The add-on's ctx.refuse (its code), or the request's shape."),
        401: errorEnvelopeSchema,
        403: errorEnvelopeSchema,
        404: errorEnvelopeSchema,
        409: errorEnvelopeSchema.describe("The add-on's ctx.refuse: any 4xx but 401 and 407 may come with the add-on's own code."),
        422: errorEnvelopeSchema.describe("The add-on's ctx.refuse: any 4xx but 401 and 407 may come with the add-on's own code."),
        429: errorEnvelopeSchema,
        502: errorEnvelopeSchema,
        503: errorEnvelopeSchema,
        504: errorEnvelopeSchema,
      },
    },
    handler: async ({ kernel, params, query, body, request, caller: publicCaller }) => {
      const who = await caller(kernel, request, publicCaller, params.key);
      const instance = who.who === 'app' ? (who.instance ?? DEFAULT_INSTANCE) : (query.instance ?? DEFAULT_INSTANCE);
      const result = await kernel.plugin(addonServiceRef).runtime.action(params.key, params.name, (body?.input ?? null) as Json, who.who, instance);
      return { data: { result } };
    },
  }),
];
