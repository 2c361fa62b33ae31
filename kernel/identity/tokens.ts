import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random URL-safe secret with `bytes` of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored only as this hash; lookups go by hash, never by the token itself. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // spend the same time either way
    return false;
  }
  return timingSafeEqual(ab, bb);
}
