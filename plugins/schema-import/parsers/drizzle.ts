import ts from 'typescript';
import type { SchemaModel } from '../../../engine/schema/model.js';
import { SchemaParseError, START, type ParseWarning } from './diagnostics.js';
import { DrizzleReader } from './drizzle/reader.js';
import { checkReferences } from './model.js';
import type { SqlDialect } from './native-types.js';

/**
 * Parses a Drizzle schema (TypeScript) without executing it: the compiler's parser builds the
 * syntax tree, and drizzle/reader.ts reads tables, enums and schemas from it.
 */
export function parseDrizzle(source: string, requested?: SqlDialect): { model: SchemaModel; warnings: ParseWarning[] } {
  const sf = ts.createSourceFile('schema.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // parseDiagnostics is how the compiler reports syntax errors without building a program.
  const diagnostics = (sf as unknown as { parseDiagnostics?: ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
  const first = diagnostics[0];
  if (first) {
    const lc = sf.getLineAndCharacterOfPosition(first.start);
    throw new SchemaParseError(lc.line + 1, lc.character + 1, ts.flattenDiagnosticMessageText(first.messageText, ' '));
  }
  const reader = new DrizzleReader(sf);
  if (requested) reader.spelling = requested;
  const model = reader.read();
  if (!model.dialect && !requested)
    reader.warnings.add(START, 'the file imports no drizzle-orm core module (pg-core, mysql-core, sqlite-core); types are spelled as PostgreSQL');
  checkReferences(model, reader.warnings, reader.origins);
  return { model, warnings: reader.warnings.done() };
}
