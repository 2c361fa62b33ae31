import type { Table } from '../../engine/schema/model.js';

/**
 * How a table is named in URLs, grants and overrides: its bare name in the default namespace
 * (every SQLite and MySQL table, PostgreSQL's `public`), else `schema.name`. A bare name keeps
 * `/data/{connectionId}/orders` readable for the common case without letting two namespaces
 * collide.
 */
export function tableRef(t: Pick<Table, 'schema' | 'name'>): string {
  return t.schema === null || t.schema === DEFAULT_NAMESPACE ? t.name : `${t.schema}.${t.name}`;
}

const DEFAULT_NAMESPACE = 'public';

const ACRONYMS = new Set(['id', 'url', 'uri', 'ip', 'api', 'sku', 'uuid', 'html', 'json', 'pdf', 'vat', 'iban']);

/** `order_items` → `Order items`, `createdAt` → `Created at`, `user_id` → `User ID`. */
export function humanize(identifier: string): string {
  const words = identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  if (words.length === 0) return identifier;
  const first = words[0]!;
  words[0] = first === first.toUpperCase() ? first : first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ');
}
