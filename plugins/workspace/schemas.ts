import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';
import { brandingSchema } from '../branding/provides.js';

export const telemetryView = z
  .strictObject({
    enabled: z.boolean().meta({ description: 'Reports are sent: the switch is on, SVC_TELEMETRY_URL is set and network features are allowed.' }),
    configured: z.boolean().meta({ description: 'SVC_TELEMETRY_URL is set.' }),
    networkFeatures: z.boolean().meta({ description: 'SVC_NETWORK_FEATURES: the instance may call out.' }),
    lastSentAt: z.number().int().nullable(),
    preview: z.record(z.string(), z.unknown()).meta({ description: 'The exact JSON that would be sent now.' }),
  })
  .meta({ id: 'Telemetry' });
export const telemetryData = dataOf(telemetryView);
export const telemetryInput = z.strictObject({ enabled: z.boolean() });

export const workspaceData = dataOf(
  z.strictObject({
    workspace: z
      .strictObject({
        name: z.string().meta({ description: 'The product name of the branding.' }),
        branding: brandingSchema,
        defaults: z.record(z.string(), z.unknown()).meta({ description: 'The preference defaults (GET /settings/defaults).' }),
        locales: z.strictObject({ default: z.string(), enabled: z.array(z.string()) }),
        baseUrl: z.string().nullable(),
        publicApi: z.strictObject({ served: z.boolean(), enabled: z.boolean(), origins: z.array(z.string()) }),
        email: z.strictObject({ configured: z.boolean() }),
        telemetry: z.strictObject({ enabled: z.boolean() }),
        meta: z.strictObject({ dialect: z.enum(['sqlite', 'postgres', 'mysql']), embedded: z.boolean() }),
      })
      .meta({ id: 'Workspace' }),
  }),
);
