import type { Table } from '../../../../engine/schema/model.js';
import type { SqlDialect } from './tokenizer.js';

/**
 * Names the database gives constraints and indexes a file leaves unnamed, so an imported file
 * and the introspected database it creates name them alike (a diff matches indexes by name).
 * PostgreSQL and MySQL name them by fixed rules; SQLite keeps no constraint names, so they stay
 * null there.
 */

const NAMEDATALEN = 64;
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** The longest prefix of `s` that fits in `bytes` UTF-8 bytes without splitting a character. */
function clip(s: string, bytes: number): string {
  let out = '';
  let used = 0;
  for (const ch of s) {
    const n = utf8(ch);
    if (used + n > bytes) break;
    out += ch;
    used += n;
  }
  return out;
}

/** PostgreSQL's makeObjectName: `name1_name2_label`, shortening the longer name until it fits 63 bytes. */
function makeObjectName(name1: string, name2: string | null, label: string): string {
  let overhead = label.length + 1;
  let n1 = utf8(name1);
  let n2 = name2 === null ? 0 : utf8(name2);
  if (name2 !== null) overhead++;
  const avail = NAMEDATALEN - 1 - overhead;
  while (n1 + n2 > avail) {
    if (n1 > n2) n1--;
    else n2--;
  }
  const a = clip(name1, n1);
  return name2 === null ? `${a}_${label}` : `${a}_${clip(name2, n2)}_${label}`;
}

/** PostgreSQL's ChooseRelationName: the first of `…_label`, `…_label1`, `…_label2` not taken. */
function choose(taken: Set<string>, name1: string, name2: string | null, label: string): string {
  for (let pass = 0; ; pass++) {
    const name = makeObjectName(name1, name2, pass === 0 ? label : `${label}${pass}`);
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

/** Columns a check expression names, as PostgreSQL picks the one it names the check after. */
function referencedColumns(table: Table, expression: string): string[] {
  const words = new Set<string>();
  for (const m of expression.matchAll(/"((?:[^"]|"")+)"|([A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*)/g)) {
    words.add(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!.toLowerCase());
  }
  return table.columns.map((c) => c.name).filter((n) => words.has(n));
}

function postgres(tables: Table[]): void {
  // Constraint and index names share one namespace per schema with the relations themselves.
  const taken = new Map<string, Set<string>>();
  const names = (t: Table) => {
    const key = t.schema ?? '';
    if (!taken.has(key)) taken.set(key, new Set());
    return taken.get(key)!;
  };
  for (const t of tables) {
    const set = names(t);
    set.add(t.name);
    if (t.primaryKey?.name) set.add(t.primaryKey.name);
    for (const x of [...t.uniques, ...t.indexes, ...t.foreignKeys, ...t.checks]) if (x.name) set.add(x.name);
  }
  for (const t of tables) {
    if (t.kind === 'view') continue;
    const set = names(t);
    if (t.primaryKey && t.primaryKey.name === null) t.primaryKey.name = choose(set, t.name, null, 'pkey');
    for (const u of t.uniques) {
      if (u.name !== null) continue;
      const twin = t.indexes.find((i) => i.name === null && i.unique && i.columns.join('\u0000') === u.columns.join('\u0000'));
      u.name = choose(set, t.name, u.columns.join('_'), 'key');
      if (twin) twin.name = u.name;
    }
    for (const i of t.indexes) {
      if (i.name !== null) continue;
      const parts = i.columns.map((c) => (t.columns.some((col) => col.name === c) ? c : 'expr'));
      // ChooseIndexName: "key" is for constraints; CREATE [UNIQUE] INDEX gets "idx".
      i.name = choose(set, t.name, parts.join('_'), 'idx');
    }
    for (const fk of t.foreignKeys) if (fk.name === null) fk.name = choose(set, t.name, fk.columns.join('_'), 'fkey');
    for (const c of t.checks) {
      if (c.name !== null) continue;
      const cols = referencedColumns(t, c.expression);
      c.name = choose(set, t.name, cols.length === 1 ? cols[0]! : null, 'check');
    }
  }
}

function mysql(tables: Table[]): void {
  for (const t of tables) {
    if (t.kind === 'view') continue;
    if (t.primaryKey) t.primaryKey.name = 'PRIMARY';
    const taken = new Set<string>(['PRIMARY']);
    for (const i of t.indexes) if (i.name) taken.add(i.name.toLowerCase());
    // An unnamed key is named after its first column, then _2, _3 … when that is taken.
    const keyName = (first: string) => {
      let name = first;
      for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${first}_${n}`;
      taken.add(name.toLowerCase());
      return name;
    };
    for (const u of t.uniques) {
      if (u.name !== null) continue;
      const twin = t.indexes.find((i) => i.name === null && i.unique && i.columns.join('\u0000') === u.columns.join('\u0000'));
      u.name = keyName(u.columns[0]!);
      if (twin) twin.name = u.name;
    }
    for (const i of t.indexes) if (i.name === null) i.name = keyName(i.columns[0]!.replace(/^\((.*)\)$/, 'functional_index'));
    let n = 0;
    for (const fk of t.foreignKeys) {
      if (fk.name === null) fk.name = `${t.name}_ibfk_${++n}`;
      // InnoDB indexes a foreign key's columns when no index (or the primary key) starts with them.
      const leads = (cols: string[]) => fk.columns.every((c, k) => cols[k] === c);
      if (!(t.primaryKey && leads(t.primaryKey.columns)) && !t.indexes.some((i) => leads(i.columns))) {
        t.indexes.push({ name: keyName(fk.name), columns: [...fk.columns], unique: false });
      }
    }
  }
}

/** Fills in the names the database would choose for unnamed keys, indexes and constraints. */
export function nameLikeTheDatabase(dialect: SqlDialect, tables: Table[]): void {
  if (dialect === 'postgres') postgres(tables);
  else if (dialect === 'mysql') mysql(tables);
}
