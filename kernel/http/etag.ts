import { createHash } from 'node:crypto';

/** A strong ETag (RFC 9110 §8.8.3) naming these exact bytes. */
export const strongEtag = (bytes: Buffer): string => `"${createHash('sha256').update(bytes).digest('base64url')}"`;

/** RFC 9110 §13.1.2: If-None-Match compares weakly; `*` matches any current representation. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
