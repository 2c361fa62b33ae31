import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { llmRoutes } from './routes.js';
import { LLM_ADMIN, LLM_CLEANUP_JOB, LLM_EXECUTE_JOB, LLM_USE, LlmService, llmServiceRef } from './service.js';
import { llmMigrations } from './tables.js';

const CLEANUP_SCHEDULE = 'llm.cleanup';

export default definePlugin<LlmService>({
  name: 'llm',
  version: '1.0.0',
  description: 'LLM assist: a request becomes a change set, shown as a diff, applied with one undo (issue 32 §4, DESIGN D16).',
  requires: ['connections', 'schema', 'data', 'pages'],
  permissions: [
    {
      name: LLM_USE,
      label: 'Use the AI assistant',
      description: 'Ask for changes, see their diff, apply and undo them (always within the data grants).',
      roles: ['editor'],
    },
    { name: LLM_ADMIN, label: 'Configure the AI assistant', description: 'Set the mode, provider, key and limits; see everyone’s runs.' },
  ],
  errors: {
    LLM_DISABLED: { status: 409, message: 'The AI assistant is turned off (mode off in the LLM settings).' },
    LLM_NOT_CONFIGURED: { status: 409, message: 'No model provider is configured (the mode is manual or off): paste the answer by hand instead.' },
    LLM_PROVIDER_ERROR: { status: 502, message: 'The model provider failed (params.reason says how).' },
    LLM_DIFF_CHANGED: { status: 409, message: 'The diff is no longer the one shown (rows changed since): review it again (params.hash).' },
    LLM_CHANGES_INVALID: { status: 400, message: 'Some changes are invalid (params.changes); fix the answer or apply with skipInvalid.' },
  },
  migrations: llmMigrations,
  routes: llmRoutes,
  jobs: {
    [LLM_EXECUTE_JOB]: {
      permission: LLM_ADMIN,
      description: 'Sends a run’s prompt to the provider (120 s, one attempt), stores and parses the answer.',
      maxAttempts: 1,
      schema: z.strictObject({ runId: z.string().min(1).max(64) }),
      subject: (p: { runId: string }) => p.runId,
      handler: (ctx) => ctx.kernel.plugin(llmServiceRef).runExecute(ctx as never),
    },
    [LLM_CLEANUP_JOB]: {
      permission: LLM_ADMIN,
      description: 'Deletes runs (prompts and answers) older than limits.retentionDays; discards runs left unapplied for 7 days.',
      maxAttempts: 1,
      handler: async (ctx) => ctx.kernel.plugin(llmServiceRef).cleanup(),
    },
  },
  setup: (kernel) => {
    kernel.schedules.register({
      kind: CLEANUP_SCHEDULE,
      list: async () => [{ id: 'daily', cron: '17 3 * * *', timeZone: 'UTC' }],
      job: () => ({ kind: LLM_CLEANUP_JOB, payload: null, maxAttempts: 1 }),
    });
    return new LlmService(kernel);
  },
});
