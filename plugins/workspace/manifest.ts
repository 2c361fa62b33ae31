import { definePlugin } from '../../kernel/api.js';
import { workspaceRoutes } from './routes.js';
import { sendTelemetry, TELEMETRY_JOB, TELEMETRY_SCHEDULE_OWNER, telemetryActive, telemetryCron, telemetryState } from './telemetry.js';

export default definePlugin({
  name: 'workspace',
  version: '1.0.0',
  description: 'The settings overview (GET /settings/workspace) and the opt-in weekly usage report (issue 31 §2).',
  requires: ['settings', 'branding', 'connections', 'pages', 'add-ons', 'public-admin'],
  errors: {
    TELEMETRY_NOT_CONFIGURED: { status: 409, message: 'Usage reports cannot be turned on: SVC_TELEMETRY_URL is not set.' },
  },
  routes: workspaceRoutes,
  jobs: {
    [TELEMETRY_JOB]: {
      permission: 'settings.write',
      description: 'Sends the anonymous usage report once (5 s, one attempt; decisions BR3).',
      maxAttempts: 1,
      handler: (ctx) => sendTelemetry(ctx.kernel, ctx.signal),
    },
  },
  setup: (kernel) => {
    kernel.schedules.register({
      kind: TELEMETRY_SCHEDULE_OWNER,
      list: async () => {
        const state = await telemetryState(kernel);
        return telemetryActive(kernel, state) ? [{ id: 'weekly', cron: telemetryCron(state.instanceId), timeZone: 'UTC' }] : [];
      },
      job: () => ({ kind: TELEMETRY_JOB, payload: null, maxAttempts: 1 }),
    });
  },
});
