import { queryRefused } from '../errors.js';

/**
 * The first path or query parameter holding U+0000, named as the caller spelled it. Checked
 * before validation, since no database takes NUL in a text value the same way (PostgreSQL
 * refuses it outright, SQLite cuts the string there).
 */
export function nulParameter(params: unknown, query: unknown): string | null {
  for (const source of [params, query]) {
    if (!source || typeof source !== 'object') continue;
    for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
      if (name.includes('\u0000')) return name;
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return name;
    }
  }
  return null;
}

export function refuseNul(params: unknown, query: unknown): void {
  const name = nulParameter(params, query);
  if (name !== null) throw queryRefused(name, 'invalid-character');
}
