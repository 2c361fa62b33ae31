import type { ErrorIssue } from '../../../kernel/api.js';
import type { StoredDefinition } from './definition.js';
import { cascadeTargets, isComputed, keyFill, offeredMethods, type TableContext } from './generate.js';

const TIME_TYPES = new Set(['datetime', 'date', 'string', 'text']);
const NUMBER_TYPES = new Set(['integer', 'bigint', 'decimal', 'float']);

/** Why a table does not offer a method, for the issue a refused definition carries. */
function whyNot(ctx: TableContext, def: StoredDefinition, method: string): string {
  const t = ctx.table;
  if (t.kind !== 'table') return `${t.ref} is a view: GET only.`;
  if (!t.primaryKey) return `${t.ref} has no primary key: GET only.`;
  if (ctx.connection.readOnly) return 'The connection is read-only: GET only.';
  if (method === 'POST' && keyFill(t) === null)
    return `The server cannot choose a key for ${t.ref}; make the key columns (${t.primaryKey.columns.join(', ')}) writable.`;
  if (method === 'DELETE')
    return `Deleting would cascade into ${cascadeTargets(ctx.model, t, def.filters.length > 0).join(', ')}, rows this endpoint was never granted; set allow_cascade to allow it.`;
  return `${t.ref} does not offer ${method}.`;
}

/**
 * Checks a whole definition against its table. Issues name the body field (`body.columns.2`) so
 * the form can point at it; secret columns are never exposed, writable or claimed with.
 */
export function validateDefinition(ctx: TableContext, def: StoredDefinition): ErrorIssue[] {
  const t = ctx.table;
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  const issues: ErrorIssue[] = [];
  const add = (path: string, code: string, message: string) => issues.push({ path: `body.${path}`, code, message });
  const exists = (path: string, name: string) => {
    if (byName.has(name)) return true;
    add(path, 'unknown_column', `${t.ref} has no column ${name}.`);
    return false;
  };
  const notSecret = (path: string, name: string) => {
    if (!byName.get(name)?.display.secret) return true;
    add(path, 'secret_column', `${name} is a secret column; it is never exposed through the public API.`);
    return false;
  };
  const exposed = new Set(def.columns);

  def.columns.forEach((c, i) => exists(`columns.${i}`, c) && notSecret(`columns.${i}`, c));
  def.writable.forEach((c, i) => {
    if (!exposed.has(c)) add(`writable.${i}`, 'not_exposed', `${c} must be among the endpoint's columns to be writable.`);
    else if (isComputed(t, c)) add(`writable.${i}`, 'computed_column', `${c} is computed by the database and cannot be written.`);
  });
  for (const [list, path] of [
    [def.filterable, 'filterable'],
    [def.searchable, 'searchable'],
    [def.orderable, 'orderable'],
  ] as const) {
    list.forEach((c, i) => exposed.has(c) || add(`${path}.${i}`, 'not_exposed', `${c} must be among the endpoint's columns.`));
  }
  for (const c of Object.keys(def.defaults)) {
    if (exists(`defaults.${c}`, c) && isComputed(t, c)) add(`defaults.${c}`, 'computed_column', `${c} is computed by the database.`);
  }
  def.filters.forEach((f, i) => exists(`filters.${i}.column`, f.column));
  def.identity.forEach((c, i) => exists(`identity.${i}`, c) && notSecret(`identity.${i}`, c));
  def.sensitive.forEach((c, i) => exists(`sensitive.${i}`, c));
  if (def.needsSession && def.identity.length === 0)
    add('needsSession', 'needs_identity', 'An endpoint that needs a customer session needs identity columns to know whose rows are theirs.');

  const offered = offeredMethods(ctx, { allowCascade: def.allowCascade, filtered: def.filters.length > 0, writable: def.writable });
  def.methods.forEach((m, i) => offered.includes(m) || add(`methods.${i}`, 'method_not_offered', whyNot(ctx, def, m)));

  const b = def.booking;
  if (b) {
    if (exists('booking.timeColumn', b.timeColumn) && !TIME_TYPES.has(byName.get(b.timeColumn)!.type))
      add('booking.timeColumn', 'column_type', `${b.timeColumn} must hold a date and time.`);
    if (b.partyColumn !== null && exists('booking.partyColumn', b.partyColumn) && !NUMBER_TYPES.has(byName.get(b.partyColumn)!.type))
      add('booking.partyColumn', 'column_type', `${b.partyColumn} must hold a number.`);
    for (const k of ['emailColumn', 'codeColumn', 'localeColumn'] as const) {
      const c = b[k];
      if (c !== null) exists(`booking.${k}`, c);
    }
    if (Object.values(b.openingHours).every((d) => !d || d.length === 0)) add('booking.openingHours', 'closed', 'Open on at least one day.');
  }
  if (def.window) exists('window.column', def.window.column);
  return issues;
}
