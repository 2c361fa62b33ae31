import { schemaModelSchema, type SchemaModel } from '../../../engine/schema/model.js';
import { LineIndex, SchemaParseError, Warnings, type ParseWarning } from './diagnostics.js';
import { elementOffsets, findSyntaxError, locatePath } from './json-positions.js';
import { checkReferences, type Origins } from './model.js';

const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '') || '(root)';

/** Reads the schema model itself (JSON), validated against its published schema. */
export function parseJsonModel(source: string): { model: SchemaModel; warnings: ParseWarning[] } {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const shift = text.length === source.length ? 0 : 1;
  const lines = new LineIndex(source);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const e = findSyntaxError(text) ?? { offset: 0, message: 'not valid JSON' };
    throw SchemaParseError.at(lines.at(e.offset + shift), e.message);
  }
  const parsed = schemaModelSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = lines.at(locatePath(text, issue.path) + shift);
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : '';
    throw SchemaParseError.at(at, `${pathText(issue.path)}: ${issue.message}${more}`);
  }
  const model = parsed.data;
  const warnings = new Warnings();
  const origins: Origins = new Map();
  const offsets = elementOffsets(text, ['tables']);
  model.tables.forEach((t, k) => {
    if (offsets[k] !== undefined) origins.set(t, lines.at(offsets[k]! + shift));
  });
  const fold = model.dialect === 'postgres' || model.dialect === null ? (n: string) => n : (n: string) => n.toLowerCase();
  checkReferences(model, warnings, origins, fold);
  return { model, warnings: warnings.done() };
}
