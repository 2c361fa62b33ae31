import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntlMessageFormat } from 'intl-messageformat';
import type { MessageId } from '../dashboard/src/i18n/message-ids.js';
import { readSourceCatalogue } from '../scripts/gen-messages.mjs';

/**
 * The whole English catalogue (i18n/en/*.json merged): every string a person can see or hear in
 * the dashboard, by id. Tests find the dashboard's text by it, as a person reads it.
 */
export const messages = Object.assign({}, ...Object.values(readSourceCatalogue())) as Readonly<Record<MessageId, string>>;

export type { MessageId };

/** A shipped locale's whole catalogue (i18n/<locale>/*.json merged), as the dashboard shows it there. */
export function messagesIn(locale: string): Readonly<Record<MessageId, string>> {
  const dir = fileURLToPath(new URL(`../i18n/${locale}/`, import.meta.url));
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  return Object.assign({}, ...files.map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, string>));
}

/** A message of `locale` formatted as the dashboard formats it (plural and select included). */
export function formatIn(locale: string): (id: MessageId, values?: Record<string, string | number>) => string {
  const catalogue = messagesIn(locale);
  return (id, values) => String(new IntlMessageFormat(catalogue[id], locale.replace(/_/g, '-')).format(values));
}
