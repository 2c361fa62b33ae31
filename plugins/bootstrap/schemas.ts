import { z } from 'zod';
import { brandingSchema } from '../branding/provides.js';
import { dataOf, effectivePermissionsShape, prefsSchema, resolvedPrefsSchema, userSchema } from '../../kernel/api.js';
import { navSchema } from '../pages/provides.js';
import { ONBOARDING_STEPS } from './onboarding.js';

export const onboardingSchema = z
  .strictObject({
    dismissed: z.boolean().describe('The caller put the checklist away (POST /onboarding/dismiss).'),
    steps: z
      .array(
        z.strictObject({
          id: z.enum(ONBOARDING_STEPS),
          done: z.boolean(),
          href: z.string().describe('The dashboard path where the step is done.'),
        }),
      )
      .describe('Only the steps the caller may do, in order; each done is read from the instance as it is.'),
    completed: z.number().int().min(0),
    total: z.number().int().min(0),
  })
  .meta({ id: 'Onboarding' });

const sessionPart = z.strictObject({
  user: userSchema,
  roles: z.array(z.string()),
  ...effectivePermissionsShape,
  twoFactorSetupRequired: z.boolean(),
  prefs: z.strictObject({ prefs: prefsSchema, resolved: resolvedPrefsSchema }),
  nav: navSchema,
  unreadNotifications: z.number().int().min(0),
  onboarding: onboardingSchema,
  publicApi: z
    .strictObject({
      served: z.boolean().describe('False when SVC_PUBLIC_API_ORIGINS is unset: the public routes are not served.'),
      enabled: z.boolean().describe("The operator's switch."),
    })
    .optional()
    .describe('Present only when the caller holds public-api.read.'),
});

export const bootstrapResponse = dataOf(
  z.strictObject({
    setup: z.strictObject({ open: z.boolean() }),
    instance: z.strictObject({
      version: z.string(),
      runtime: z.enum(['self-host', 'desktop']),
      smtpConfigured: z.boolean(),
      desktopDemo: z.boolean(),
    }),
    branding: brandingSchema.describe('What GET /branding answers: the sign-in page and the shell show it.'),
    i18n: z.null().describe('The locale, direction and bundles hash once i18n exists; null until then.'),
    session: sessionPart.nullable().describe('null when signed out (no session cookie) or called with an API key, which has no user.'),
  }),
);

export const onboardingResponse = dataOf(onboardingSchema);
export const dismissResponse = dataOf(z.strictObject({ dismissed: z.literal(true) }));
