import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * A 26-character id that sorts by creation time (48-bit ms timestamp + 80 random bits), so
 * keyset pagination by id is also pagination by age.
 */
export function newId(now: number = Date.now()): string {
  let out = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(10);
  let acc = 0n;
  for (const b of rnd) acc = (acc << 8n) | BigInt(b);
  let tail = '';
  for (let i = 0; i < 16; i++) {
    tail = ALPHABET[Number(acc & 31n)]! + tail;
    acc >>= 5n;
  }
  return out + tail;
}
