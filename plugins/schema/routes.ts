import { z } from 'zod';
import { AppError, dataOf, encodeCursor, jobSchema, type Kernel, noBody, reply, route, SIGNED_IN, toJobView } from '../../kernel/api.js';
import { connectionsRef } from '../connections/provides.js';
import { SCHEMA_READ, SCHEMA_WRITE } from './access.js';
import { grantedModel, schemaAccess } from './data-reader.js';
import { OVERRIDE_LIMITS, overridesInputSchema } from './overrides.js';
import {
  connectionParams,
  diffBody,
  diffQuery,
  generateBody,
  generateInput,
  introspectBody,
  overridesBody,
  schemaBody,
  snapshotBody,
  snapshotListBody,
  snapshotListQuery,
  snapshotParams,
} from './schemas.js';
import { INTROSPECT_JOB, LARGE_SCHEMA_TABLES } from './jobs.js';
import { schemaServiceRef } from './service.js';

const schema = (kernel: Kernel) => kernel.plugin(schemaServiceRef);
const target = (id: string) => ({ type: 'connection', id });
// The seed lists these operations under Connections.
const tags = ['connections'];

export const schemaRoutes = [
  route({
    method: 'POST',
    url: '/connections/:id/introspect',
    tags,
    summary: "Read the connection's schema and store a snapshot when it changed",
    description:
      'An unchanged structure stores nothing and answers the latest snapshot with `created: false`; a change stores a snapshot, answers a summary of the diff, and emits `schema.changed`. ' +
      `With \`background=true\`, or when the latest snapshot has more than ${LARGE_SCHEMA_TABLES} tables, it runs as the job \`schema.introspect\` and answers 202 with the job.`,
    permission: SCHEMA_WRITE,
    schema: {
      params: connectionParams,
      query: z.object({ background: z.enum(['true', 'false']).optional() }),
      body: noBody,
      response: { 200: introspectBody, 202: dataOf(z.strictObject({ job: jobSchema })) },
    },
    handler: async ({ kernel, params, query, principal, audit }) => {
      const service = schema(kernel);
      const background = query.background === 'true' || (query.background !== 'false' && (await service.latestTableCount(params.id)) > LARGE_SCHEMA_TABLES);
      if (background) {
        await kernel.plugin(connectionsRef).info(params.id);
        const job = await kernel.jobs.enqueue(INTROSPECT_JOB, { connectionId: params.id }, { createdBy: principal?.userId ?? null });
        audit({ action: 'schema.introspect.queued', target: target(params.id), diff: { jobId: job.id } });
        return reply(202, { data: { job: toJobView(job) } });
      }
      const result = await service.introspect(params.id);
      audit({
        action: 'schema.introspect',
        target: target(params.id),
        diff: { snapshotId: result.snapshot.id, hash: result.snapshot.hash, created: result.created },
      });
      return { data: result };
    },
  }),
  route({
    method: 'GET',
    url: '/connections/:id/schema',
    tags,
    summary: 'The latest snapshot with the overrides applied',
    description:
      'Each table carries `ref` and `display` {label, hidden, displayColumn}; each column `display` {label, hidden, personal, secret, format}. ' +
      '`problems` lists overrides naming a table or column the snapshot does not have. 404 SCHEMA_NOT_INTROSPECTED before the first introspection. ' +
      'Needs connections.read; a caller without it whose data.read grants reach this connection gets the tables and columns they read, ' +
      'with no overrides or problems (SC6); anyone else 403 naming connections.read.',
    permission: SIGNED_IN,
    schema: { params: connectionParams, response: { 200: schemaBody } },
    handler: async ({ kernel, params, principal }) => {
      const access = schemaAccess(principal!.permissions, params.id);
      if (access === 'none') throw new AppError('FORBIDDEN', { params: { permission: SCHEMA_READ } });
      const { snapshot, value } = await schema(kernel).current(params.id);
      if (access === 'granted') {
        const model = grantedModel(principal!.permissions, params.id, value.model);
        return { data: { snapshotId: value.snapshotId, snapshot, model, overrides: { tables: [] }, problems: [] } };
      }
      return { data: { snapshotId: value.snapshotId, snapshot, model: value.model, overrides: value.overrides, problems: value.problems } };
    },
  }),
  route({
    method: 'GET',
    url: '/connections/:id/schema/snapshots',
    tags,
    summary: "The connection's snapshots, newest first (without their models)",
    permission: SCHEMA_READ,
    schema: { params: connectionParams, query: snapshotListQuery, response: { 200: snapshotListBody } },
    handler: async ({ kernel, params, query }) => {
      const page = await schema(kernel).listSnapshots(params.id, query.limit, query.cursor?.id);
      return { data: { snapshots: page.snapshots, nextCursor: page.next ? encodeCursor({ id: page.next }) : null } };
    },
  }),
  route({
    method: 'GET',
    url: '/connections/:id/schema/snapshots/:snapshotId',
    tags,
    summary: 'One snapshot with its model',
    permission: SCHEMA_READ,
    schema: { params: snapshotParams, response: { 200: snapshotBody } },
    handler: async ({ kernel, params }) => ({ data: await schema(kernel).snapshot(params.id, params.snapshotId) }),
  }),
  route({
    method: 'GET',
    url: '/connections/:id/schema/diff',
    tags,
    summary: 'What changed between two snapshots',
    description:
      '`to` defaults to the latest snapshot and `from` to the one before `to`; with no snapshot before, everything is added. ' +
      'Tables and columns are matched by name, so a rename shows as removed + added. Row estimates never count.',
    permission: SCHEMA_READ,
    schema: { params: connectionParams, query: diffQuery, response: { 200: diffBody } },
    handler: async ({ kernel, params, query }) => ({ data: await schema(kernel).diff(params.id, query.from, query.to) }),
  }),
  route({
    method: 'GET',
    url: '/connections/:id/schema/overrides',
    tags,
    summary: 'Display overrides of the connection, with those that name a missing table or column',
    permission: SCHEMA_READ,
    schema: { params: connectionParams, response: { 200: overridesBody } },
    handler: async ({ kernel, params }) => ({ data: await schema(kernel).overrides(params.id) }),
  }),
  route({
    method: 'PUT',
    url: '/connections/:id/schema/overrides',
    tags,
    summary: 'Replace the display overrides of the connection',
    description:
      `The whole set: a table or column left out goes back to its defaults. At most ${OVERRIDE_LIMITS.tables} tables and ${OVERRIDE_LIMITS.columnsPerTable} columns per table, each once. ` +
      'Overrides naming what the latest snapshot lacks are kept and reported in `problems`.',
    permission: SCHEMA_WRITE,
    bodyLimit: OVERRIDE_LIMITS.bodyBytes,
    schema: { params: connectionParams, body: overridesInputSchema, response: { 200: overridesBody } },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await schema(kernel).replaceOverrides(params.id, body);
      audit({ action: 'schema.overrides.set', target: target(params.id), diff: { before, after: after.overrides } });
      return { data: after };
    },
  }),
  route({
    method: 'POST',
    url: '/connections/:id/generate',
    tags,
    summary: 'Create the default pages of the connection: a list and a detail page per table',
    description:
      'Honours labels, hidden tables and columns and the display column. Idempotent: a page generated before for the same table and kind is left as it is (`existing`). ' +
      '`dryRun` answers what would be created without writing. Unknown tables answer 400 naming them.',
    permission: SCHEMA_WRITE,
    schema: { params: connectionParams, body: generateInput, response: { 200: generateBody } },
    handler: async ({ kernel, params, body, audit }) => {
      const service = schema(kernel);
      if (body.tables) {
        const unknown = new Set(await service.unknownTables(params.id, body.tables));
        const issues = body.tables.flatMap((t, i) =>
          unknown.has(t) ? [{ path: `body.tables.${i}`, code: 'unknown_table', message: `The latest snapshot has no table ${t}.` }] : [],
        );
        if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      }
      const result = await service.generate(params.id, { tables: body.tables, dryRun: body.dryRun ?? false });
      audit({
        action: 'schema.generate',
        target: target(params.id),
        diff: { dryRun: result.dryRun, snapshotId: result.snapshotId, created: result.created.map((p) => p.generatedKey), existing: result.existing.length },
      });
      return { data: result };
    },
  }),
];
