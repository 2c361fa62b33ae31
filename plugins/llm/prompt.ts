import type { EffectiveColumn, EffectiveTable } from '../schema/provides.js';
import { CHANGE_SET_FORMAT } from './changes.js';

export interface PromptTable {
  table: EffectiveTable;
  /** The columns the caller reads, in table order. */
  readable: readonly EffectiveColumn[];
  /** Sample rows, only of columns that are neither secret nor personal (empty unless asked). */
  samples: readonly Record<string, unknown>[];
  /** The table's pages the caller sees, which a create-view may name (absent: none listed). */
  pages?: ReadonlyArray<{ id: string; title: string; kind: string }>;
}

export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

/** Columns whose values may go into a prompt: read by the caller, neither secret nor personal (decisions LL5). */
export const sampleable = (readable: readonly EffectiveColumn[]) => readable.filter((c) => !c.display.secret && !c.display.personal);

const quote = (s: string) => JSON.stringify(s);

function describeColumn(c: EffectiveColumn, pk: ReadonlySet<string>): string {
  const parts = [`${quote(c.name)}: ${c.type} (${c.nativeType})`];
  if (pk.has(c.name)) parts.push('primary key');
  if (!c.nullable) parts.push('not null');
  if (c.autoIncrement) parts.push('filled by the database');
  else if (c.default !== null) parts.push(`default ${c.default}`);
  if (c.generated) parts.push('generated, never written');
  if (c.enumValues) parts.push(`one of ${c.enumValues.map(quote).join(', ')}`);
  if (c.maxLength !== null && (c.type === 'string' || c.type === 'text')) parts.push(`at most ${c.maxLength} characters`);
  if (c.display.label && c.display.label !== c.name) parts.push(`label ${quote(c.display.label)}`);
  if (c.display.personal) parts.push('personal data: values never shown');
  return `  - ${parts.join(', ')}`;
}

function describeTable(t: PromptTable): string {
  const { table } = t;
  const pk = new Set(table.primaryKey?.columns ?? []);
  const readable = new Set(t.readable.map((c) => c.name));
  const lines = [
    `Table ${quote(table.ref)}${table.display.label && table.display.label !== table.ref ? ` (label ${quote(table.display.label)})` : ''}${table.kind === 'view' ? ', a view: read only' : ''}`,
  ];
  lines.push(`  primary key: ${table.primaryKey ? table.primaryKey.columns.map(quote).join(', ') : 'none (rows cannot be changed)'}`);
  lines.push('  columns:');
  for (const c of t.readable) lines.push(describeColumn(c, pk));
  const fks = table.foreignKeys.filter((fk) => fk.columns.every((c) => readable.has(c)));
  if (fks.length) {
    lines.push('  foreign keys:');
    for (const fk of fks)
      lines.push(`  - (${fk.columns.map(quote).join(', ')}) references ${quote(fk.referencedTable)} (${fk.referencedColumns.map(quote).join(', ')})`);
  }
  if (t.pages?.length) {
    lines.push('  pages showing this table (a create-view names one by id):');
    for (const p of t.pages) lines.push(`  - id ${quote(p.id)}: ${quote(p.title)} (${p.kind})`);
  }
  if (t.samples.length) {
    lines.push(`  sample rows (${t.samples.length}, personal and secret columns left out):`);
    for (const r of t.samples) lines.push(`  ${JSON.stringify(r)}`);
  }
  return lines.join('\n');
}

/** The messages of a run: the rules and format, then the schema (and samples), then the request. */
export function buildPrompt(input: { dialect: string; tables: readonly PromptTable[]; request: string }): {
  messages: PromptMessage[];
  text: string;
  chars: number;
} {
  const system =
    'You help edit the rows of a database through an admin tool. You never run anything yourself: you propose a change set, which a person reviews as a diff before it is applied.\n\n' +
    CHANGE_SET_FORMAT;
  const user = [
    `Database: ${input.dialect}. The tables you may change, as the person sees them:`,
    '',
    ...input.tables.map(describeTable),
    '',
    'Request:',
    input.request,
  ].join('\n');
  const messages: PromptMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  const text = messages.map((m) => `### ${m.role}\n${m.content}`).join('\n\n');
  return { messages, text, chars: text.length };
}
