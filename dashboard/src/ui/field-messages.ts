import type { ApiError } from '../api/errors';
import { t, type MessageId } from '../i18n/t';

/** The form field an issue's path names: a body field by its name (`body.email` → `email`), other paths as they are. */
const issueField = (path: string): string => (path.startsWith('body.') ? path.slice('body.'.length) : path);

/** A field's own messages, by the code of the server's issue (zod's: too_small, too_big, invalid_format, invalid_type…). */
export type FieldMessages = Readonly<Record<string, Readonly<Partial<Record<string, MessageId>>>>>;

/**
 * The server's field issues (VALIDATION_FAILED's `issues`, `body.email` → `email`) in the form's
 * own words: the first issue of each field, its code looked up in `words`; a field or code the form
 * has no words for keeps the server's message. zod's messages ("Too small: expected string to have
 * >=8 characters") speak about types, not about what the person typed.
 */
export function fieldMessages(error: ApiError | null, words: FieldMessages): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error?.issues ?? []) {
    const field = issueField(issue.path);
    if (field in out) continue;
    const id = words[field]?.[issue.code];
    out[field] = id ? t(id) : issue.message;
  }
  return out;
}

/** How many fields the issues name: a field with two problems (empty, so too short and not an e-mail) counts once. */
export const fieldsNeedingAttention = (error: ApiError): number => new Set(error.issues.map((i) => issueField(i.path))).size;
