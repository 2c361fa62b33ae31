import { z } from 'zod';

/** A value of the change set: JSON scalars, arrays and objects (json columns). */
const values = z.record(z.string().min(1).max(255), z.unknown());
const table = z.string().min(1).max(255);
/** A row's key: its primary key columns by name, or the record id as /data addresses it. */
const key = z.union([z.record(z.string().min(1).max(255), z.union([z.string(), z.number(), z.boolean()])), z.string().min(1).max(1000), z.number()]);

/**
 * One change of a change set (decisions LL4). Only these five: there is no operation for DDL or
 * SQL, so an answer asking for one is invalid.
 */
export const changeSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('insert'), table, values }),
  z.strictObject({ op: z.literal('update'), table, key, values }),
  z.strictObject({ op: z.literal('delete'), table, key }),
  z.strictObject({
    op: z.literal('create-view'),
    pageId: z.string().min(1).max(64),
    name: z.string().min(1).max(100),
    query: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    op: z.literal('create-page'),
    title: z.string().min(1).max(200),
    kind: z.enum(['list', 'detail', 'form', 'dashboard']),
    table: table.optional(),
    slug: z.string().min(1).max(100).optional(),
  }),
]);
export type Change = z.infer<typeof changeSchema>;
export type ChangeKey = z.infer<typeof key>;

/** The whole set: `{"changes": [...]}`, or the bare array. */
const changeSetSchema = z.union([z.strictObject({ changes: z.array(z.unknown()) }), z.array(z.unknown())]);

/** The change-set format as the prompt tells it to the model. */
export const CHANGE_SET_FORMAT = `Answer with one JSON object and nothing else (a \`\`\`json fenced block is fine):
{"changes": [
  {"op": "insert", "table": "<table>", "values": {"<column>": <value>, ...}},
  {"op": "update", "table": "<table>", "key": {"<primary key column>": <value>}, "values": {"<column>": <new value>, ...}},
  {"op": "delete", "table": "<table>", "key": {"<primary key column>": <value>}},
  {"op": "create-page", "title": "<title>", "kind": "list" | "detail" | "form" | "dashboard", "table": "<table>"},
  {"op": "create-view", "pageId": "<id of a page listed under its table>", "name": "<view name>", "query": {"filters": [{"column": "<column>", "op": "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "like" | "null", "value": "<value as text>"}], "sort": "-<column>,<column>", "columns": ["<column>", ...]}}
]}
Rules: only the tables listed above; only their columns; values as JSON (decimals and dates as strings, e.g. "12.50", "2024-05-01", "2024-05-01T10:00:00Z"); give every required column of an insert; never schema changes (no CREATE, ALTER or DROP) and no SQL. If the request cannot be done with these operations, answer {"changes": []}.`;

export type Parsed = { ok: true; changes: Change[] } | { ok: false; problems: string[] };

/** JSON texts to try, in order: the whole answer, each fenced block, the outermost braces or brackets. */
function candidates(text: string): string[] {
  const out = [text.trim()];
  for (const m of text.matchAll(/```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)```/g)) out.push(m[1]!.trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) out.push(text.slice(first, last + 1));
  const fa = text.indexOf('[');
  const la = text.lastIndexOf(']');
  // A bare array only when it is not inside the braces (`{"rows": []}` holds no change set).
  if (fa >= 0 && la > fa && (first < 0 || fa < first)) out.push(text.slice(fa, la + 1));
  return out;
}

/**
 * The change set in a model's answer: bare or fenced JSON, checked by the schema. Invalid (with
 * why) when no JSON is found, when it is not a change set, when a change is malformed or names a
 * table outside the run, or when there are more than `maxChanges`.
 */
export function parseAnswer(text: string, runTables: readonly string[], maxChanges: number): Parsed {
  let found: unknown = undefined;
  let jsonError: string | null = null;
  const fenced = /```/.test(text);
  // The first candidate that is a change set; else the first that is JSON at all (to say it is not one).
  for (const c of candidates(text)) {
    if (!c) continue;
    try {
      const value: unknown = JSON.parse(c);
      if (changeSetSchema.safeParse(value).success) {
        found = value;
        break;
      }
      if (found === undefined) found = value;
    } catch (err) {
      jsonError ??= (err as Error).message;
    }
  }
  if (found === undefined) {
    const looksJson = fenced || /^\s*[[{]/.test(text);
    return {
      ok: false,
      problems: [
        looksJson ? `The JSON in the answer is not valid: ${jsonError ?? 'unreadable'}.` : 'No JSON change set was found in the answer (it reads as prose).',
      ],
    };
  }
  const set = changeSetSchema.safeParse(found);
  if (!set.success) return { ok: false, problems: ['The JSON is not a change set: expected {"changes": [...]}.'] };
  const raw = Array.isArray(set.data) ? set.data : set.data.changes;
  const problems: string[] = [];
  if (raw.length > maxChanges) problems.push(`${raw.length} changes: at most ${maxChanges} in one run.`);
  const changes: Change[] = [];
  const allowed = new Set(runTables);
  for (const [i, item] of raw.slice(0, maxChanges).entries()) {
    const op = typeof item === 'object' && item !== null ? (item as { op?: unknown }).op : undefined;
    const parsed = changeSchema.safeParse(item);
    if (!parsed.success) {
      const why =
        typeof op === 'string' && !['insert', 'update', 'delete', 'create-view', 'create-page'].includes(op)
          ? `unknown operation "${op.slice(0, 40)}" (no SQL or schema changes)`
          : parsed.error.issues.map((x) => `${x.path.join('.') || 'change'}: ${x.message}`).join('; ');
      problems.push(`changes.${i}: ${why}`);
      continue;
    }
    const c = parsed.data;
    if ((c.op === 'insert' || c.op === 'update' || c.op === 'delete') && !allowed.has(c.table))
      problems.push(`changes.${i}: the table "${c.table}" is not one of this run's tables.`);
    if (c.op === 'create-page' && c.table !== undefined && !allowed.has(c.table))
      problems.push(`changes.${i}: the table "${c.table}" is not one of this run's tables.`);
    changes.push(c);
  }
  return problems.length ? { ok: false, problems } : { ok: true, changes };
}
