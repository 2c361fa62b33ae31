import { z } from 'zod';
import { cursorField, dataOf, encodeCursor, HANDLED, type Kernel, listQuery, rawResponse, reply, route } from '../../kernel/api.js';
import { contentDisposition } from './files.js';
import { FORMAT_INFO } from './formats/index.js';
import { createExportBody, exportBody, exportIdParams, exportSchema } from './schemas.js';
import { exportsServiceRef, EXPORTS_RUN } from './service.js';

const service = (kernel: Kernel) => kernel.plugin(exportsServiceRef);
const tags = ['Exports'];

export const exportRoutes = [
  route({
    method: 'GET',
    url: '/exports',
    summary: 'Exports, newest first',
    description: 'The caller’s own exports; with `all=true`, holders of exports.admin see everyone’s.',
    permission: EXPORTS_RUN,
    tags,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.string().min(1).max(64)), all: z.enum(['true', 'false']).optional() }),
      response: { 200: dataOf(z.strictObject({ exports: z.array(exportSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query, principal }) => {
      const s = service(kernel);
      const page = await s.page(principal!, query.limit, query.cursor, query.all === 'true');
      const exports = await Promise.all(page.rows.map((r) => s.resolve(r)));
      return { data: { exports, nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/exports',
    summary: 'Export a table (or a filtered, sorted part of it) to CSV, JSON lines or XLSX',
    description:
      'Runs as the job `export.run`; poll GET /exports/{id} (or watch `job.progress` events) until `state` is `ready`, then download. ' +
      'Needs exports.run and a data.read grant reaching the table; only columns that grant reaches can be named, filtered or sorted on, and secret columns are never exported. ' +
      'Default columns: every readable column that is not hidden.',
    permission: EXPORTS_RUN,
    tags,
    schema: { body: createExportBody, response: { 202: exportBody } },
    handler: async ({ kernel, body, principal, audit }) => {
      const exp = await service(kernel).create(principal!, body);
      audit({
        action: 'exports.create',
        target: { type: 'export', id: exp.id },
        diff: {
          connectionId: exp.connectionId,
          table: exp.table,
          format: exp.format,
          columns: exp.columns,
          filter: exp.filter,
          search: exp.search,
          sort: exp.sort,
          formulaSafe: exp.formulaSafe,
        },
      });
      return reply(202, { data: { export: exp } });
    },
  }),
  route({
    method: 'GET',
    url: '/exports/:id',
    summary: 'One export: state, progress, rows and bytes written, expiry',
    permission: EXPORTS_RUN,
    tags,
    schema: { params: exportIdParams, response: { 200: exportBody } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      return { data: { export: await s.resolve(await s.visible(principal!, params.id)) } };
    },
  }),
  route({
    method: 'GET',
    url: '/exports/:id/download',
    summary: 'Download the exported file',
    description: 'Streams the file with Content-Disposition. 409 EXPORT_NOT_READY before it is ready (or when it failed), 410 EXPORT_EXPIRED once removed.',
    permission: EXPORTS_RUN,
    tags,
    schema: {
      params: exportIdParams,
      response: { 200: rawResponse('application/octet-stream', 'The file: text/csv, application/x-ndjson or XLSX, as Content-Type says.') },
    },
    handler: async ({ kernel, params, principal, reply: res }): Promise<typeof HANDLED> => {
      const s = service(kernel);
      const file = await s.file(await s.visible(principal!, params.id));
      const ascii = file.name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
      res
        .code(200)
        .header('content-type', FORMAT_INFO[file.format].contentType)
        .header('content-length', String(file.size))
        .header('content-disposition', contentDisposition(ascii, file.name))
        .header('cache-control', 'private, no-store');
      await res.send(file.stream);
      return HANDLED;
    },
  }),
];
