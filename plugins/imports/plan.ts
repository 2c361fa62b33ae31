import type { ErrorIssue } from '../../kernel/api.js';
import type { Column } from '../../engine/schema/model.js';
import type { EffectiveTable } from '../schema/provides.js';

export interface MappingInput {
  mapping: Record<string, string | null>;
  mode: 'insert' | 'upsert';
  upsertKey?: string[] | null;
}

export interface ImportPlan {
  /** [source column, table column] for every mapped column. */
  pairs: Array<[string, Column]>;
  key: string[];
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * Checks a mapping against the upload's columns, the table and what the caller may write.
 * Every NOT NULL column without a default (nor filled by the database) must be mapped; an
 * upsert key must be mapped and be the primary key or a unique constraint.
 */
export function planImport(
  table: EffectiveTable,
  sourceColumns: string[],
  writable: (column: string) => boolean,
  input: MappingInput,
  issues: ErrorIssue[],
): ImportPlan {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const pairs: Array<[string, Column]> = [];
  const targets = new Set<string>();
  for (const [source, target] of Object.entries(input.mapping)) {
    const at = `body.mapping.${source}`;
    if (!sourceColumns.includes(source)) {
      issues.push({ path: at, code: 'unknown_source_column', message: 'The upload has no column of this name.' });
      continue;
    }
    if (target === null) continue;
    const column = byName.get(target);
    if (!column) issues.push({ path: at, code: 'unknown_column', message: `The table has no column "${target}".` });
    else if (column.generated) issues.push({ path: at, code: 'generated_column', message: `"${target}" is computed by the database.` });
    else if (!writable(target)) issues.push({ path: at, code: 'not_writable', message: `Your data.write grant does not reach "${target}".` });
    else if (targets.has(target)) issues.push({ path: at, code: 'duplicate_target', message: `"${target}" is mapped twice.` });
    else {
      targets.add(target);
      pairs.push([source, column]);
    }
  }
  if (pairs.length === 0 && issues.length === 0) issues.push({ path: 'body.mapping', code: 'empty_mapping', message: 'Map at least one column.' });
  const missing = table.columns.filter((c) => !c.nullable && c.default === null && !c.autoIncrement && !c.generated && !targets.has(c.name));
  if (missing.length && pairs.length)
    issues.push({ path: 'body.mapping', code: 'required_columns', message: `Required columns are not mapped: ${missing.map((c) => c.name).join(', ')}.` });
  const key = input.upsertKey ?? [];
  if (input.mode === 'upsert') {
    const candidates = [table.primaryKey?.columns ?? [], ...table.uniques.map((u) => u.columns)].filter((k) => k.length);
    if (!key.length) issues.push({ path: 'body.upsertKey', code: 'required', message: 'An upsert needs the key its rows are matched on.' });
    else if (!candidates.some((k) => sameSet(k, key)))
      issues.push({ path: 'body.upsertKey', code: 'not_a_key', message: 'The key must be the primary key or a unique constraint of the table.' });
    else if (!key.every((k) => targets.has(k))) issues.push({ path: 'body.upsertKey', code: 'key_not_mapped', message: 'Every key column must be mapped.' });
  } else if (input.upsertKey) {
    issues.push({ path: 'body.upsertKey', code: 'not_upsert', message: 'Only an upsert takes a key.' });
  }
  return { pairs, key };
}
