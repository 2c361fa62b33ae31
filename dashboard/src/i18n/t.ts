import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import { messages, type MessageId } from './messages.en';

export const LOCALE = 'en';
const compiled = new Map<MessageId, IntlMessageFormat>();

/** The message `id` of the catalogue, formatted with `values` (ICU message syntax). */
export function t(id: MessageId, values?: Record<string, PrimitiveType>): string {
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(messages[id], LOCALE);
    compiled.set(id, format);
  }
  return String(format.format(values));
}

export type { MessageId };
