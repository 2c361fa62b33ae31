import { z } from 'zod';
import { cursorField, dataOf, encodeCursor, jobSchema, type Kernel, listQuery, noBody, reply, route, toJobView } from '../../kernel/api.js';
import {
  applyBody,
  applyInput,
  configBody,
  configInput,
  createRunInput,
  diffBody,
  modelsBody,
  promptBody,
  responseInput,
  runBody,
  runIdParams,
  runSchema,
  testBody,
  undoParams,
} from './schemas.js';
import { LLM_ADMIN, LLM_USE, llmServiceRef } from './service.js';

const service = (kernel: Kernel) => kernel.plugin(llmServiceRef);
const tags = ['LLM'];

export const llmRoutes = [
  route({
    method: 'GET',
    url: '/llm/config',
    summary: 'The LLM assist settings',
    description:
      'Mode (off, provider, manual), the provider (base URL, model, whether a key is set, header names) and the limits. The key and header values are never returned.',
    permission: LLM_ADMIN,
    tags,
    schema: { response: { 200: configBody } },
    handler: async ({ kernel }) => {
      const c = service(kernel).config;
      return { data: c.view(await c.stored()) };
    },
  }),
  route({
    method: 'PUT',
    url: '/llm/config',
    summary: 'Change the LLM assist settings',
    description:
      'The key and header values are sealed and never returned or logged. 400 VALIDATION_FAILED `baseUrl-invalid` at body.provider.baseUrl for a URL that is not http(s), has a user or password, ' +
      'or names a link-local address or a cloud metadata service (169.254.169.254, …). 409 NETWORK_FEATURES_DISABLED for a public host while SVC_NETWORK_FEATURES is false; ' +
      'loopback and private addresses (a local model server) are always allowed (decisions LL2).',
    permission: LLM_ADMIN,
    tags,
    schema: { body: configInput, response: { 200: configBody } },
    handler: async ({ kernel, body, audit }) => {
      const s = service(kernel);
      const { view, changed } = await s.config.update(body);
      s.forgetModels();
      audit({ action: 'llm.config.update', target: { type: 'settings', id: 'llm' }, diff: { mode: view.mode, changed } });
      return { data: view };
    },
  }),
  route({
    method: 'POST',
    url: '/llm/config/test',
    summary: 'Try the provider with the stored settings',
    description:
      'One tiny chat completion. 409 LLM_NOT_CONFIGURED unless the mode is provider; 502 LLM_PROVIDER_ERROR with params.reason unreachable, auth, model-not-found or bad-answer, and params.status.',
    permission: LLM_ADMIN,
    tags,
    schema: { body: noBody, response: { 200: testBody } },
    handler: async ({ kernel }) => ({ data: await service(kernel).test() }),
  }),
  route({
    method: 'GET',
    url: '/llm/models',
    summary: "The provider's models",
    description: "From the provider's `GET /models`, kept 5 minutes; an empty list unless the mode is provider. 502 LLM_PROVIDER_ERROR as the test.",
    permission: LLM_ADMIN,
    tags,
    schema: { response: { 200: modelsBody } },
    handler: async ({ kernel }) => ({ data: { models: await service(kernel).listModels() } }),
  }),
  route({
    method: 'GET',
    url: '/llm/runs',
    summary: 'LLM runs, newest first',
    description: 'The caller’s own runs; every run for holders of llm.admin. `undoToken` as GET /llm/runs/{id} gives it.',
    permission: LLM_USE,
    tags,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.string().min(1).max(64)) }),
      response: { 200: dataOf(z.strictObject({ runs: z.array(runSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query, principal }) => {
      const s = service(kernel);
      const page = await s.page(principal!, query.limit, query.cursor);
      return { data: { runs: page.rows.map((r) => s.viewFor(principal!, r)), nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/llm/runs',
    summary: 'Start a run: the prompt is built',
    description:
      'The prompt holds the chosen tables’ schema (names, labels, types, keys, foreign keys) and, only when `includeSampleRows` > 0, that many rows of each in the columns the caller reads that are neither secret nor personal. ' +
      '409 LLM_DISABLED while the mode is off; 403 FORBIDDEN without data.read on a table; 404 NOT_FOUND for an unknown connection or table; 400 `prompt-too-long` over limits.maxPromptChars.',
    permission: LLM_USE,
    tags,
    schema: { body: createRunInput, response: { 201: runBody } },
    handler: async ({ kernel, body, principal, audit }) => {
      const run = await service(kernel).create(principal!, body);
      audit({
        action: 'llm.run.create',
        target: { type: 'llm.run', id: run.id },
        diff: { connectionId: run.connectionId, tables: run.tables, includeSampleRows: run.includeSampleRows },
      });
      return reply(201, { data: { run } });
    },
  }),
  route({
    method: 'GET',
    url: '/llm/runs/:id',
    summary: 'One run',
    description:
      '404 for another’s run (unless llm.admin). `undoToken` while the run is applied and its token unexpired, to who applied it and to llm.admin (those who may undo it).',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, response: { 200: runBody } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      return { data: { run: s.viewFor(principal!, await s.visible(principal!, params.id)) } };
    },
  }),
  route({
    method: 'GET',
    url: '/llm/runs/:id/prompt',
    summary: 'The prompt of a run',
    description: 'The messages, and the same as one text to copy into any chat model (manual mode).',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, response: { 200: promptBody } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      return { data: s.prompt(await s.visible(principal!, params.id)) };
    },
  }),
  route({
    method: 'POST',
    url: '/llm/runs/:id/execute',
    summary: 'Send the prompt to the provider',
    description:
      'Job `llm.execute` (120 s, one attempt) calls the provider, stores the answer and parses it; the run goes running → answered → parsed or invalid, or failed with `error`. ' +
      '409 LLM_NOT_CONFIGURED when the mode is manual or off; 409 CONFLICT `wrong-state` unless the run is prompted, failed, invalid or parsed (never a discarded one).',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, body: noBody, response: { 202: dataOf(z.strictObject({ run: runSchema, job: jobSchema })) } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      const { run, jobId } = await s.execute(principal!, await s.visible(principal!, params.id));
      const job = await kernel.jobs.get(jobId);
      return reply(202, { data: { run, job: toJobView(job!) } });
    },
  }),
  route({
    method: 'POST',
    url: '/llm/runs/:id/response',
    summary: 'Give the answer by hand (manual mode)',
    description:
      'The change set is JSON in the text, bare or fenced. The run is then parsed, or invalid with `problems` (prose, invalid JSON, not a change set, a table outside the run, more than limits.maxChanges, an unknown operation). ' +
      '409 CONFLICT `wrong-state` once applied, undone, discarded or running.',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, body: responseInput, response: { 200: runBody } },
    handler: async ({ kernel, params, principal, body }) => {
      const s = service(kernel);
      return { data: { run: await s.respond(await s.visible(principal!, params.id), body.text) } };
    },
  }),
  route({
    method: 'GET',
    url: '/llm/runs/:id/diff',
    summary: 'The change set as a diff',
    description:
      'Each row change with the row as it is now (`before`, read with the caller’s grants) and after, dry-run checked (types, writable and required columns, the write grant; secret columns are never written): `valid` and `problems`. ' +
      '`hash` is what apply must confirm. 409 CONFLICT `wrong-state` unless parsed.',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, response: { 200: diffBody } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      return { data: { diff: (await s.diff(principal!, await s.visible(principal!, params.id))).diff } };
    },
  }),
  route({
    method: 'POST',
    url: '/llm/runs/:id/apply',
    summary: 'Apply the change set',
    description:
      'Through the data plugin’s writer in one transaction on the connection (add-ons’ hooks, audit, events), with the caller’s permissions, then pages. ' +
      '409 LLM_DIFF_CHANGED (params.hash: the diff’s hash now) when the diff is no longer the one shown; 400 LLM_CHANGES_INVALID (params.changes) with invalid changes unless `skipInvalid`; ' +
      '403 FORBIDDEN without data.write on a table written. Then the pages and shared views of the set are made (`create-view` through the pages plugin’s checks). The undo token is valid 24 hours. ' +
      '409 CONFLICT `wrong-state` unless parsed (a discarded run too).',
    permission: LLM_USE,
    tags,
    schema: { params: runIdParams, body: applyInput, response: { 200: applyBody } },
    handler: async ({ kernel, params, principal, body, audit }) => {
      const s = service(kernel);
      const done = await s.apply(principal!, await s.visible(principal!, params.id), body);
      audit({
        action: 'llm.run.apply',
        target: { type: 'llm.run', id: done.run.id },
        diff: { connectionId: done.run.connectionId, applied: done.applied, tables: done.audit, made: done.made },
      });
      return { data: { run: done.run, undoToken: done.undoToken, applied: done.applied } };
    },
  }),
  route({
    method: 'POST',
    url: '/llm/runs/:id/undo/:token',
    summary: 'Undo an applied run',
    description:
      'Every row the run wrote goes back and the pages and shared views it made are deleted, or nothing is undone: 409 CONFLICT `rows-changed` with params.rows listing each row changed since (table, recordId, reason), ' +
      'params.pages (pageId, title, reason `page-changed` or `page-in-use`) and params.views (pageId, viewId, name, reason `view-changed`) those changed since. ' +
      '404 NOT_FOUND for a token not this run’s, spent or expired (24 h). Only who applied it or an llm.admin.',
    permission: LLM_USE,
    tags,
    schema: { params: undoParams, body: noBody, response: { 200: runBody } },
    handler: async ({ kernel, params, principal, audit }) => {
      const s = service(kernel);
      const done = await s.undo(principal!, await s.visible(principal!, params.id), params.token);
      audit({
        action: 'llm.run.undo',
        target: { type: 'llm.run', id: done.run.id },
        diff: { connectionId: done.run.connectionId, reverted: done.reverted, removed: done.removed },
      });
      return { data: { run: done.run } };
    },
  }),
];
