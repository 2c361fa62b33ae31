import { createHash } from 'node:crypto';

/** The shortest identifier limit of the three dialects (PostgreSQL truncates at 63 bytes, MySQL refuses over 64). */
export const MAX_IDENTIFIER = 63;

/**
 * An index name that is the same on every plan of the same table and columns, unique per
 * database (PostgreSQL and SQLite index names are not per table), and within MAX_IDENTIFIER:
 * a readable prefix, then a hash of the whole.
 */
export function indexName(table: string, columns: readonly string[], unique: boolean): string {
  const hash = createHash('sha256')
    .update(`${table}\0${columns.join('\0')}\0${unique ? 'u' : 'i'}`)
    .digest('hex')
    .slice(0, 8);
  const prefix = `${table}_${columns.join('_')}`.slice(0, 48).replace(/_+$/, '');
  return `${prefix}_${unique ? 'ux' : 'ix'}_${hash}`;
}

/** The primary key constraint's name (MySQL ignores it: its primary key is always PRIMARY). */
export function primaryKeyName(table: string): string {
  return `${table.slice(0, 40)}_pkey`;
}
