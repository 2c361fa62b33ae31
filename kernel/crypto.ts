import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { RecentAnswers } from './memo/recent.js';

const VERSION = 'v1';

/** A 256-bit key derived from SVC_SECRET for one purpose only (HKDF-SHA256). */
function purposeKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), Buffer.from(`svc:${purpose}`, 'utf8'), 32));
}

/**
 * Encrypts secrets at rest (SMTP passwords, TOTP secrets, connection URLs) with AES-256-GCM
 * under a key derived from SVC_SECRET for one purpose, so two purposes never share a key.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = purposeKey(secret, purpose);
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws when the value was not made by this box (wrong secret, tampered or truncated). */
  decrypt(sealed: string): string {
    const [version, payload] = sealed.split(':');
    if (version !== VERSION || !payload) throw new Error('not a sealed value');
    const raw = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** 128 bits of HMAC-SHA256: forging one takes 2^128 guesses, and it keeps tokens short. */
const MAC_BYTES = 16;
const MAC_TEXT = Math.ceil((MAC_BYTES * 4) / 3);

/**
 * Signs values the server hands out and must get back unchanged (list cursors): the caller
 * sees the payload, but only a token this instance (or a replica sharing SVC_SECRET) made
 * opens. `context` binds a token to where it was issued without carrying it in the token, so a
 * token made for one list does not open for another.
 */
export class TokenSigner {
  private readonly key: Buffer;
  /** A token made or handed back again and again (a popular list's next cursor) costs one HMAC, not one each; engine/rows/cursor.ts keeps a first page's whole cursor. */
  private readonly macs = new RecentAnswers<string>(512);

  constructor(secret: string, purpose: string) {
    this.key = purposeKey(secret, purpose);
  }

  /** `<payload>.<mac>`; the payload must be URL-safe text without a dot (base64url is). */
  sign(payload: string, context = ''): string {
    return `${payload}.${this.mac(payload, context)}`;
  }

  /** The payload of a token this signer made for `context`, or null (forged, altered, truncated, another context). */
  open(token: string, context = ''): string | null {
    const dot = token.length - MAC_TEXT - 1;
    if (dot < 0 || token.charCodeAt(dot) !== 46 /* . */) return null;
    const payload = token.slice(0, dot);
    // Compared as text: base64url's unused low bits would let two spellings of one MAC open.
    const given = Buffer.from(token.slice(dot + 1), 'latin1');
    const expected = Buffer.from(this.mac(payload, context), 'latin1');
    return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null;
  }

  /** The MAC as base64url text. */
  private mac(payload: string, context: string): string {
    const input = `${context}\n${payload}`;
    let mac = this.macs.get(input);
    if (mac === undefined) {
      mac = createHmac('sha256', this.key).update(input).digest().subarray(0, MAC_BYTES).toString('base64url');
      this.macs.set(input, mac);
    }
    return mac;
  }
}
