import type { SchemaModel } from '../../../engine/schema/model.js';
import { SchemaParseError, START, type ParseWarning } from './diagnostics.js';
import { parseJsonModel } from './json.js';
import { parsePrisma } from './prisma.js';
import { parseSql, type SqlDialect } from './sql/index.js';

export { SchemaParseError, type ParseWarning } from './diagnostics.js';

export const SOURCE_FORMATS = ['sql', 'prisma', 'drizzle', 'json'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

export interface ParseInput {
  format: SourceFormat;
  /** For SQL, the flavour (detected when absent); for the others, used when the file does not say. */
  dialect?: SqlDialect;
  source: string;
}

export interface ParseOutput {
  model: SchemaModel;
  warnings: ParseWarning[];
}

/** Reconciles a requested dialect with what a Prisma, Drizzle or JSON file declares. */
function settleDialect(out: ParseOutput, requested: SqlDialect | undefined): ParseOutput {
  if (!requested) return out;
  if (out.model.dialect === null) return { ...out, model: { ...out.model, dialect: requested } };
  if (out.model.dialect !== requested) {
    out.warnings.push({ ...START, message: `the file declares dialect ${out.model.dialect}; the requested ${requested} is ignored` });
  }
  return out;
}

/** Parses a schema file into the schema model. Nothing in the file is executed or imported. */
export async function parseSchemaFile(input: ParseInput): Promise<ParseOutput> {
  try {
    switch (input.format) {
      case 'sql':
        return await parseSql(input.source, input.dialect);
      case 'prisma':
        return settleDialect(parsePrisma(input.source, input.dialect), input.dialect);
      case 'drizzle': {
        // The TypeScript compiler is large: it is loaded on the first Drizzle file, not at start.
        const { parseDrizzle } = await import('./drizzle.js');
        return settleDialect(parseDrizzle(input.source, input.dialect), input.dialect);
      }
      case 'json':
        return settleDialect(parseJsonModel(input.source), input.dialect);
    }
  } catch (err) {
    // Pathological nesting can exhaust the stack of a recursive reader: a refusal, not a crash.
    if (err instanceof RangeError) throw new SchemaParseError(1, 1, 'the file is nested too deeply (or is too large) to read');
    throw err;
  }
}
