import { definePlugin } from '../../kernel/api.js';
import { parseSchemaFile, type ParseInput, type ParseOutput } from './parsers/index.js';
import { schemaImportRoutes } from './routes.js';

/** What the plugin provides (no plugin requires it yet): the same parser as the route. */
export interface SchemaImportService {
  parse(input: ParseInput): Promise<ParseOutput>;
}

export default definePlugin<SchemaImportService>({
  name: 'schema-import',
  version: '1.0.0',
  description: 'Reads a schema file (SQL DDL, Prisma, Drizzle or the JSON model) into the schema model, statically.',
  permissions: [
    {
      name: 'schema-import.use',
      label: 'Import schema files',
      description: 'Parse SQL, Prisma, Drizzle or JSON schema files into the schema model (nothing is executed or stored).',
      roles: ['editor'],
    },
  ],
  errors: {
    SCHEMA_PARSE_FAILED: { status: 400, message: 'The schema file cannot be read.' },
  },
  routes: schemaImportRoutes,
  setup: () => ({ parse: parseSchemaFile }),
});
