import type { Table } from '../model.js';
import { indexName, MAX_IDENTIFIER } from './names.js';
import type { ColumnPlan, DdlColumn, DdlDialectName, DdlPlan, DdlTable, DeclaredTable, IndexPlan, TablePlan } from './types.js';

/**
 * What creating (or upgrading to) `declared` on a connection that holds `existing` takes.
 *
 * - A table that does not exist is created; one that exists is this add-on's only when
 *   `previous` (the installed version's declarations) declares it, otherwise it is a conflict.
 * - An upgrade is additive: new tables, columns and indexes. A column (or table) the previous
 *   version declared and this one does not is dropped; a column whose declared type changed is
 *   retyped; both make the plan `destructive`.
 * - What an upgrade cannot do is a refusal: a NOT NULL column without a default on an existing
 *   table (PostgreSQL and MySQL refuse it once the table has rows, so we refuse it always, and
 *   the plan does not depend on row counts), a primary key change, a name over 63 characters.
 * - Nullability and default changes of existing columns, and indexes no longer declared, are
 *   left as they are, with a warning.
 *
 * Pure: the same inputs give the same plan (the add-ons plugin hashes it).
 */
export function planTables(declared: DeclaredTable[], existing: Table[], previous?: DdlTable[], options: PlanOptions = {}): DdlPlan {
  const plan: DdlPlan = { tables: [], destructive: false, warnings: [], conflicts: [], refusals: [] };
  const onConnection = new Map(existing.map((t) => [t.name, t]));
  const before = new Map((previous ?? []).map((t) => [t.name, t]));

  for (const { physicalName, table } of declared) {
    if (physicalName.length > MAX_IDENTIFIER) {
      plan.refusals.push(`Table name ${physicalName} is longer than ${MAX_IDENTIFIER} characters; shorten the add-on key or the table name.`);
    }
    const found = onConnection.get(physicalName);
    const was = before.get(table.name);
    if (!found) {
      if (was) plan.warnings.push(`Table ${physicalName} of the installed version is missing on the connection; it is created again, empty.`);
      plan.tables.push(createPlan(physicalName, table));
    } else if (!was || found.kind !== 'table') {
      plan.conflicts.push({ table: physicalName, reason: 'exists' });
    } else {
      plan.tables.push(alterPlan(plan, physicalName, table, was, found));
    }
  }
  if (options.dialect) plan.refusals.push(...dialectRefusals(plan, options.dialect));

  const now = new Set(declared.map((d) => d.table.name));
  for (const was of previous ?? []) {
    if (now.has(was.name)) continue;
    const physicalName = physicalNameOf(was.name, declared, options);
    const found = physicalName ? onConnection.get(physicalName) : undefined;
    if (!physicalName || !found) continue;
    plan.destructive = true;
    plan.warnings.push(`Table ${physicalName} is no longer declared: it is dropped with its rows.`);
    plan.tables.push({
      name: physicalName,
      declaredName: was.name,
      action: 'drop',
      columns: was.columns.map((c) => ({ name: c.name, type: c.type, action: 'drop' })),
      indexes: [],
      primaryKey: [],
    });
  }
  return plan;
}

export interface PlanOptions {
  /**
   * The physical name of a previous table no longer declared (pass
   * `(t) => physicalTableName(key, t)`). Without it the prefix of a declared table is used, so a
   * version that declares no tables at all cannot drop its previous ones.
   */
  physicalName?: (declaredName: string) => string;
  /**
   * The connection's dialect: adds what only it cannot do to `refusals` (SQLite: a retype, a
   * `now()` default on an added column). applyTables checks the same again.
   */
  dialect?: DdlDialectName;
}

function physicalNameOf(name: string, declared: DeclaredTable[], options: PlanOptions): string | null {
  if (options.physicalName) return options.physicalName(name);
  const sibling = declared[0];
  return sibling ? `${sibling.physicalName.slice(0, sibling.physicalName.length - sibling.table.name.length)}${name}` : null;
}

function createPlan(name: string, table: DdlTable): TablePlan {
  return {
    name,
    declaredName: table.name,
    action: 'create',
    columns: table.columns.map((c) => ({ name: c.name, type: c.type, action: 'add', declaration: c })),
    indexes: wantedIndexes(name, table).map((i) => ({ ...i, action: 'add' })),
    primaryKey: [...table.primaryKey],
  };
}

function alterPlan(plan: DdlPlan, name: string, table: DdlTable, was: DdlTable, found: Table): TablePlan {
  const columns: ColumnPlan[] = [];
  const has = new Set(found.columns.map((c) => c.name));
  for (const c of table.columns) {
    const prev = was.columns.find((p) => p.name === c.name);
    if (!has.has(c.name)) {
      if (!c.nullable && c.default === undefined) {
        plan.refusals.push(
          `Column ${name}.${c.name} is NOT NULL without a default: it cannot be added to an existing table. Give it a default or make it nullable.`,
        );
      }
      columns.push({ name: c.name, type: c.type, action: 'add', declaration: c });
    } else if (!prev) {
      plan.warnings.push(`Column ${name}.${c.name} already exists and was not declared by the installed version; it is kept as it is.`);
      columns.push({ name: c.name, type: c.type, action: 'keep' });
    } else if (typeChanged(prev, c)) {
      plan.destructive = true;
      plan.warnings.push(`Column ${name}.${c.name} changes type (${describe(prev)} → ${describe(c)}): its values are converted or lost.`);
      columns.push({ name: c.name, type: c.type, action: 'retype', declaration: c });
    } else {
      if (prev.nullable !== c.nullable || !sameDefault(prev.default, c.default) || prev.autoIncrement !== c.autoIncrement) {
        plan.warnings.push(`Column ${name}.${c.name}: nullability, default or numbering changed; an upgrade does not apply that, the column is kept as it is.`);
      }
      columns.push({ name: c.name, type: c.type, action: 'keep' });
    }
  }
  const declaredNow = new Set(table.columns.map((c) => c.name));
  for (const p of was.columns) {
    if (declaredNow.has(p.name) || !has.has(p.name)) continue;
    plan.destructive = true;
    plan.warnings.push(`Column ${name}.${p.name} is no longer declared: it is dropped with its values.`);
    columns.push({ name: p.name, type: p.type, action: 'drop' });
  }
  const indexes: IndexPlan[] = wantedIndexes(name, table).map((i) => ({
    ...i,
    action: found.indexes.some((x) => x.unique === i.unique && sameList(x.columns, i.columns)) ? 'keep' : 'add',
  }));
  // An index on a dropped column goes first (SQLite refuses to drop an indexed column).
  const dropped = new Set(columns.filter((c) => c.action === 'drop').map((c) => c.name));
  for (const x of found.indexes) {
    if (x.name === null || !x.columns.some((c) => dropped.has(c))) continue;
    indexes.push({ name: x.name, columns: [...x.columns], unique: x.unique, action: 'drop' });
  }
  if (!sameList(was.primaryKey, table.primaryKey)) {
    plan.refusals.push(
      `Table ${name}: the primary key changes (${was.primaryKey.join(', ')} → ${table.primaryKey.join(', ')}); an upgrade cannot change a primary key.`,
    );
  }

  for (const w of wantedIndexes(name, was)) {
    if (!indexes.some((i) => i.unique === w.unique && sameList(i.columns, w.columns))) {
      plan.warnings.push(`Index on ${name} (${w.columns.join(', ')}) is no longer declared; it is kept.`);
    }
  }
  const changes = columns.some((c) => c.action !== 'keep') || indexes.some((i) => i.action !== 'keep');
  return { name, declaredName: table.name, action: changes ? 'alter' : 'keep', columns, indexes, primaryKey: [] };
}

/** What the plan asks of a dialect that cannot do it; shared with applyTables. */
export function dialectRefusals(plan: DdlPlan, dialect: DdlDialectName): string[] {
  if (dialect !== 'sqlite') return [];
  const out: string[] = [];
  for (const t of plan.tables) {
    if (t.action !== 'alter') continue;
    for (const c of t.columns) {
      if (c.action === 'retype') out.push(`Column ${t.name}.${c.name}: SQLite cannot change a column's type in place.`);
      // SQLite refuses a non-constant default in ADD COLUMN once the table has rows; refused always, as the plan must not depend on row counts.
      if (c.action === 'add' && c.declaration?.default === 'now()') {
        out.push(`Column ${t.name}.${c.name}: SQLite cannot add a column defaulting to now() to an existing table; give it no default or a literal one.`);
      }
    }
  }
  return out;
}

/** Declared indexes plus one unique index per `unique: true` column, without duplicates. */
function wantedIndexes(table: string, t: DdlTable): Omit<IndexPlan, 'action'>[] {
  const out: Omit<IndexPlan, 'action'>[] = [];
  const add = (columns: string[], unique: boolean) => {
    if (unique && sameList(columns, t.primaryKey)) return; // the primary key is unique already
    if (out.some((o) => o.unique === unique && sameList(o.columns, columns))) return;
    out.push({ name: indexName(table, columns, unique), columns: [...columns], unique });
  };
  for (const c of t.columns) if (c.unique) add([c.name], true);
  for (const i of t.indexes) add(i.columns, i.unique);
  return out;
}

/** The type and what shapes it (length, precision, values), with the schema's defaults filled in. */
function describe(c: DdlColumn): string {
  switch (c.type) {
    case 'string':
      return `string(${c.maxLength ?? 255})`;
    case 'decimal':
      return `decimal(${c.precision ?? 12},${c.scale ?? 2})`;
    case 'enum':
      return `enum(${(c.values ?? []).join(',')})`;
    default:
      return c.type;
  }
}

function typeChanged(a: DdlColumn, b: DdlColumn): boolean {
  return describe(a) !== describe(b);
}

function sameDefault(a: DdlColumn['default'], b: DdlColumn['default']): boolean {
  return a === b;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The plan as D24's `plan.tables` shows it to the operator (no declarations, no physical index names). */
export interface TablePlanSummary {
  name: string;
  action: TablePlan['action'];
  columns: { name: string; type: ColumnPlan['type']; action: ColumnPlan['action'] }[];
  indexes: { columns: string[]; unique: boolean; action: IndexPlan['action'] }[];
}

/** `refusals` is not in D24's shape: a plan with any cannot be installed, so the caller answers with an error instead. */
export function summarisePlan(plan: DdlPlan): { tables: TablePlanSummary[]; destructive: boolean; warnings: string[]; refusals: string[] } {
  return {
    tables: plan.tables.map((t) => ({
      name: t.name,
      action: t.action,
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, action: c.action })),
      indexes: t.indexes.map((i) => ({ columns: [...i.columns], unique: i.unique, action: i.action })),
    })),
    destructive: plan.destructive,
    warnings: [...plan.warnings],
    refusals: [...plan.refusals],
  };
}
