import { z } from 'zod';
import {
  AppError,
  cursorField,
  dataOf,
  encodeCursor,
  HANDLED,
  type Kernel,
  listQuery,
  multipartBodyError,
  multipartFile,
  noBody,
  rawResponse,
  reply,
  route,
} from '../../kernel/api.js';
import { createImportBody, idParams, importBody, importSchema, uploadBody } from './schemas.js';
import { importsServiceRef, DEFAULT_MAX_UPLOAD_BYTES, IMPORTS_RUN } from './service.js';

const service = (kernel: Kernel) => kernel.plugin(importsServiceRef);
const tags = ['Imports'];
export const UPLOAD_URL = '/imports/upload';

export const importRoutes = [
  route({
    method: 'POST',
    url: UPLOAD_URL,
    summary: 'Upload a CSV, JSON or XLSX file to import',
    description:
      'multipart/form-data with one file part. The size limit is the `imports` setting `maxUploadBytes`, else `SVC_IMPORT_MAX_BYTES`, else 50 MiB (413 PAYLOAD_TOO_LARGE beyond). ' +
      'The format is detected from the content; the answer lists the columns with a guessed type, the first rows and the record count. ' +
      'CSV: UTF-8, header row, delimiter , ; tab or |. JSON: an array of objects, or JSON lines. XLSX: the first sheet, header row; 413 IMPORT_UNPACKED_TOO_LARGE when it unpacks beyond the limits ' +
      "(`SVC_IMPORT_MAX_UNPACKED_BYTES`, 128 MiB of shared strings, 1,048,576 rows, 16,384 columns, the reader's memory; `params.what` names the limit). " +
      'A multipart body without a usable boundary answers 400 MULTIPART_MALFORMED. Uploads expire after 24 h.',
    permission: IMPORTS_RUN,
    tags,
    // The handler reads the file with the limit in force (maxUploadBytes), which wins over this one.
    multipart: { fileSize: DEFAULT_MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 20 },
    schema: { body: noBody, response: { 201: uploadBody } },
    handler: async ({ kernel, request, principal, audit }) => {
      const limit = await service(kernel).maxUploadBytes();
      const part = await multipartFile(request, { fileSize: limit, files: 1 });
      if (!part) throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.file', code: 'required', message: 'No file part in the form.' }] });
      try {
        const upload = await service(kernel).upload(principal!, part.filename || 'upload', part.file, limit);
        audit({
          action: 'imports.upload',
          target: { type: 'import-upload', id: upload.id },
          diff: { fileName: upload.fileName, format: upload.format, size: upload.size, rowCount: upload.rowCount },
        });
        return reply(201, { data: { upload } });
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
          throw new AppError('PAYLOAD_TOO_LARGE', { message: `The file is larger than ${limit} bytes.`, params: { limit } });
        // The file's stream failed: the body broke off or left its boundary (a disk error passes through).
        if (part.file.errored) throw multipartBodyError(err);
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/imports',
    summary: 'Imports, newest first',
    description: 'The caller’s own imports; with `all=true`, holders of imports.admin see everyone’s.',
    permission: IMPORTS_RUN,
    tags,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.string().min(1).max(64)), all: z.enum(['true', 'false']).optional() }),
      response: { 200: dataOf(z.strictObject({ imports: z.array(importSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query, principal }) => {
      const s = service(kernel);
      const page = await s.page(principal!, query.limit, query.cursor, query.all === 'true');
      return { data: { imports: await Promise.all(page.rows.map((r) => s.resolve(r))), nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/imports',
    summary: 'Set up an import of an upload into a table (checked, not yet run)',
    description:
      'The mapping, the upsert key and the caller’s data.write grant are checked against the upload and the table (400 with the body path of each problem). ' +
      'Run it with POST /imports/{id}/run. To do for real what a dry run checked, create another import of the same upload.',
    permission: IMPORTS_RUN,
    tags,
    schema: { body: createImportBody, response: { 201: importBody } },
    handler: async ({ kernel, body, principal, audit }) => {
      const imp = await service(kernel).create(principal!, body);
      audit({
        action: 'imports.create',
        target: { type: 'import', id: imp.id },
        diff: {
          uploadId: imp.uploadId,
          connectionId: imp.connectionId,
          table: imp.table,
          mapping: imp.mapping,
          mode: imp.mode,
          upsertKey: imp.upsertKey,
          atomic: imp.atomic,
          dryRun: imp.dryRun,
        },
      });
      return reply(201, { data: { import: imp } });
    },
  }),
  route({
    method: 'POST',
    url: '/imports/:id/run',
    summary: 'Run an import (as the job import.run)',
    description: 'Answers 202 with the queued import; 409 IMPORT_NOT_RUNNABLE when it already ran. Watch GET /imports/{id} or the `job.progress` events.',
    permission: IMPORTS_RUN,
    tags,
    schema: { params: idParams, body: noBody, response: { 202: importBody } },
    handler: async ({ kernel, params, principal, audit }) => {
      const s = service(kernel);
      const imp = await s.run(principal!, await s.visible(principal!, params.id));
      audit({
        action: imp.dryRun ? 'imports.dry-run' : 'imports.run',
        target: { type: 'import', id: imp.id },
        diff: { connectionId: imp.connectionId, table: imp.table, jobId: imp.jobId },
      });
      return reply(202, { data: { import: imp } });
    },
  }),
  route({
    method: 'GET',
    url: '/imports/:id',
    summary: 'One import: state, counts (total, inserted, updated, refused), progress',
    permission: IMPORTS_RUN,
    tags,
    schema: { params: idParams, response: { 200: importBody } },
    handler: async ({ kernel, params, principal }) => {
      const s = service(kernel);
      return { data: { import: await s.resolve(await s.visible(principal!, params.id)) } };
    },
  }),
  route({
    method: 'GET',
    url: '/imports/:id/error-report',
    summary: 'The refused records as CSV: line, reason, then the source columns',
    description:
      '`line` is the line of the CSV file (of its header-counted lines), the record position in a JSON array, the line of JSON lines, or the sheet row of XLSX. 409 IMPORT_NO_REPORT before the run started.',
    permission: IMPORTS_RUN,
    tags,
    schema: { params: idParams, response: { 200: rawResponse('text/csv', 'line,reason,<source columns…>; a header only when nothing was refused.') } },
    handler: async ({ kernel, params, principal, reply: res }): Promise<typeof HANDLED> => {
      const s = service(kernel);
      const row = await s.visible(principal!, params.id);
      const file = await s.report(row);
      res
        .code(200)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="import-${row.id}-errors.csv"`)
        .header('cache-control', 'private, no-store');
      await res.send(file.stream);
      return HANDLED;
    },
  }),
];
