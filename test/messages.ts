import type { MessageId } from '../dashboard/src/i18n/message-ids.js';
import { readSourceCatalogue } from '../scripts/gen-messages.mjs';

/**
 * The whole English catalogue (i18n/en/*.json merged): every string a person can see or hear in
 * the dashboard, by id. Tests find the dashboard's text by it, as a person reads it.
 */
export const messages = Object.assign({}, ...Object.values(readSourceCatalogue())) as Readonly<Record<MessageId, string>>;

export type { MessageId };
