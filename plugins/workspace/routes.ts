import { AppError, errorEnvelopeSchema, type Kernel, route } from '../../kernel/api.js';
import { brandingRef } from '../branding/provides.js';
import { publicAdminRef } from '../public-admin/provides.js';
import { settingsRef } from '../settings/provides.js';
import { telemetryData, telemetryInput, workspaceData } from './schemas.js';
import { saveTelemetryState, telemetryActive, telemetryReport, telemetryState, TELEMETRY_SCHEDULE_OWNER } from './telemetry.js';

const tags = ['Settings'];

async function telemetryOf(kernel: Kernel) {
  const state = await telemetryState(kernel);
  return {
    enabled: telemetryActive(kernel, state),
    configured: kernel.config.telemetryUrl !== null,
    networkFeatures: kernel.config.networkFeatures,
    lastSentAt: state.lastSentAt,
    preview: await telemetryReport(kernel, state),
  };
}

export const workspaceRoutes = [
  route({
    method: 'GET',
    url: '/settings/workspace',
    summary: 'The settings overview in one read',
    description: 'Branding, preference defaults, languages, base URL, public API, e-mail, telemetry and the meta store (decisions BR4).',
    permission: 'settings.read',
    tags,
    schema: { response: { 200: workspaceData } },
    handler: async ({ kernel }) => {
      const [branding, defaults, publicApi, configured, telemetry] = await Promise.all([
        kernel.plugin(brandingRef).view(),
        kernel.plugin(settingsRef).defaults(),
        kernel.plugin(publicAdminRef).state(),
        kernel.mailer.configured(),
        telemetryState(kernel),
      ]);
      const dialect = kernel.meta.dialect;
      return {
        data: {
          workspace: {
            name: branding.productName,
            branding,
            defaults,
            // Until languages can be added (issue 31 §1) the dashboard speaks English only.
            locales: { default: 'en', enabled: ['en'] },
            baseUrl: kernel.config.baseUrl,
            publicApi: { served: publicApi.served, enabled: publicApi.enabled, origins: publicApi.origins },
            email: { configured },
            telemetry: { enabled: telemetryActive(kernel, telemetry) },
            meta: { dialect, embedded: dialect === 'sqlite' },
          },
        },
      };
    },
  }),
  route({
    method: 'GET',
    url: '/settings/telemetry',
    summary: 'Whether usage reports are sent, and the exact report',
    description:
      '`preview` is the JSON a report would carry now: counts in buckets and features on or off, never a name, e-mail, URL or table name (decisions BR3).',
    permission: 'settings.read',
    tags,
    schema: { response: { 200: telemetryData } },
    handler: async ({ kernel }) => ({ data: await telemetryOf(kernel) }),
  }),
  route({
    method: 'PUT',
    url: '/settings/telemetry',
    summary: 'Turn the weekly usage report on or off',
    description:
      'Off by default. Turning it on answers 409 TELEMETRY_NOT_CONFIGURED while SVC_TELEMETRY_URL is unset, and 409 NETWORK_FEATURES_DISABLED while SVC_NETWORK_FEATURES is false; turning it off always works.',
    permission: 'settings.write',
    tags,
    schema: { body: telemetryInput, response: { 200: telemetryData, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, body, audit }) => {
      if (body.enabled && kernel.config.telemetryUrl === null) throw new AppError('TELEMETRY_NOT_CONFIGURED');
      if (body.enabled && !kernel.config.networkFeatures) throw new AppError('NETWORK_FEATURES_DISABLED');
      const state = await telemetryState(kernel);
      await saveTelemetryState(kernel, { ...state, enabled: body.enabled });
      await kernel.schedules.reload();
      audit({ action: 'settings.telemetry', target: { type: 'settings', id: TELEMETRY_SCHEDULE_OWNER }, diff: { enabled: body.enabled } });
      return { data: await telemetryOf(kernel) };
    },
  }),
];
