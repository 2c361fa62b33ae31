import { queryRefused } from '../errors.js';

/**
 * The first path or query parameter holding U+0000, named as the caller spelled it. Checked
 * before validation, since no database takes NUL in a text value the same way (PostgreSQL
 * refuses it outright, SQLite cuts the string there).
 */
export function nulParameter(params: unknown, query: unknown): string | null {
  return nulIn(params) ?? nulIn(query);
}

// Loops rather than entries/some: this runs on every public request.
function nulIn(source: unknown): string | null {
  if (!source || typeof source !== 'object') return null;
  const record = source as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (name.includes('\u0000')) return name;
    const value = record[name];
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return name;
    } else if (Array.isArray(value)) {
      for (const v of value) if (typeof v === 'string' && v.includes('\u0000')) return name;
    }
  }
  return null;
}

export function refuseNul(params: unknown, query: unknown): void {
  const name = nulParameter(params, query);
  if (name !== null) throw queryRefused(name, 'invalid-character');
}
