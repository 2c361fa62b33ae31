import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import shellMessages from '../../../i18n/en/shell.json';
import type { MessageId, Namespace } from './message-ids';

export const LOCALE = 'en';

/**
 * The strings `t()` knows, by id. The shell's are here from the start; each namespace's are added
 * when its first screen loads (areas/area.ts, lazyWithMessages, through `loadNamespace`).
 */
const catalogue = new Map<string, string>();
const compiled = new Map<string, IntlMessageFormat>();
const reported = new Set<string>();

/** Adds strings to the catalogue, or replaces those it has (the formats made from them are dropped). */
export function addMessages(bundle: Readonly<Record<string, string>>): void {
  for (const [id, text] of Object.entries(bundle)) {
    catalogue.set(id, text);
    compiled.delete(id);
  }
}

addMessages(shellMessages);

/** The English source files of i18n/en, each its own chunk, fetched when a screen of its namespace first loads. */
const sources = import.meta.glob<Readonly<Record<string, string>>>('../../../i18n/en/*.json', { import: 'default' });

/** Loads one namespace's strings into the catalogue. */
export async function loadNamespace(namespace: Namespace): Promise<void> {
  const load = sources[`../../../i18n/en/${namespace}.json`];
  if (!load) throw new Error(`No strings for the namespace "${namespace}".`);
  addMessages(await load());
}

/**
 * The message `id` of the catalogue, formatted with `values` (ICU message syntax). An id whose
 * namespace is not loaded yet (a screen drawn outside its area's lazy loading) shows as the
 * id itself, and is reported once as a console error, which the browser tests fail on.
 */
export function t(id: MessageId, values?: Record<string, PrimitiveType>): string {
  let format = compiled.get(id);
  if (!format) {
    const text = catalogue.get(id);
    if (text === undefined) {
      if (!reported.has(id)) {
        reported.add(id);
        console.error(`The message "${id}" is not in the catalogue: its area's messages are not loaded.`);
      }
      return id;
    }
    format = new IntlMessageFormat(text, LOCALE);
    compiled.set(id, format);
  }
  return String(format.format(values));
}

/** Whether the catalogue holds `id`: for ids made from data (a permission's name), which may have no message. */
export function hasMessage(id: string): id is MessageId {
  return catalogue.has(id);
}

export type { MessageId, Namespace };
