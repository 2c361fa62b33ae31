import { z } from 'zod';
import { AppError, dataOf, route } from '../../kernel/api.js';
import { schemaModelSchema } from '../../engine/schema/model.js';
import { parseSchemaFile, SchemaParseError, SOURCE_FORMATS } from './parsers/index.js';

/** The largest file accepted, in characters of the `source` string. */
export const MAX_SOURCE_CHARS = 10 * 1024 * 1024;
/**
 * The request carries the source JSON-escaped (a pg_dump grows about 5% with its newlines and
 * quoted identifiers) plus the envelope: 12 MiB leaves room for a 10 MiB file.
 */
export const BODY_LIMIT = 12 * 1024 * 1024;

export const parseWarningSchema = z
  .strictObject({ line: z.number().int().min(1), column: z.number().int().min(1), message: z.string() })
  .meta({ id: 'SchemaImportWarning' });

export const parseBodySchema = z.strictObject({
  format: z.enum(SOURCE_FORMATS),
  dialect: z.enum(['postgres', 'mysql', 'sqlite']).optional(),
  source: z.string().max(MAX_SOURCE_CHARS),
});

export const schemaImportRoutes = [
  route({
    method: 'POST',
    url: '/schema-import/parse',
    summary: 'Parse a schema file (SQL, Prisma, Drizzle or the JSON model) into the schema model',
    description:
      'Static parsing only: nothing in the file is executed, imported or stored. For SQL, `dialect` chooses the flavour and is detected when absent; ' +
      'for the other formats the file names its dialect and `dialect` is used only when it does not. Statements and constructs the schema model ' +
      'cannot hold are skipped and listed in `warnings`. A file that cannot be read answers 400 SCHEMA_PARSE_FAILED with ' +
      '`params: {line, column, message}` (1-based).',
    permission: 'schema-import.use',
    bodyLimit: BODY_LIMIT,
    schema: {
      body: parseBodySchema,
      response: { 200: dataOf(z.strictObject({ model: schemaModelSchema, warnings: z.array(parseWarningSchema) })) },
    },
    handler: async ({ body, audit }) => {
      try {
        const out = await parseSchemaFile(body);
        // The source is not recorded: it can be 10 MB, and parsing changes nothing.
        audit({
          action: 'schema-import.parse',
          target: null,
          diff: { format: body.format, dialect: out.model.dialect, chars: body.source.length, tables: out.model.tables.length, warnings: out.warnings.length },
        });
        return { data: out };
      } catch (err) {
        if (err instanceof SchemaParseError) {
          throw new AppError('SCHEMA_PARSE_FAILED', {
            message: `The schema file cannot be read: ${err.message}`,
            params: { line: err.line, column: err.column, message: err.detail },
          });
        }
        throw err;
      }
    },
  }),
];
