import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
const RANDOM_MAX = (1n << 80n) - 1n;

let lastTime = -1;
let lastRandom = 0n;

/**
 * A 26-character id that sorts by creation time (48-bit ms timestamp + 80 random bits), so
 * keyset pagination by id is also pagination by age. Within one process and one millisecond it
 * is strictly increasing: a second id in the same millisecond takes the previous random part
 * plus one, so two audit entries written in one millisecond keep their order. An explicit
 * earlier time (an injected clock, a back-dated row) is honoured as given.
 */
export function newId(now: number = Date.now()): string {
  const time = now;
  let random: bigint;
  if (time === lastTime && lastRandom < RANDOM_MAX) {
    random = lastRandom + 1n;
  } else {
    random = 0n;
    for (const b of randomBytes(10)) random = (random << 8n) | BigInt(b);
    // Leave room to count up within the millisecond.
    random >>= 1n;
  }
  lastTime = time;
  lastRandom = random;
  let tail = '';
  let r = random;
  for (let i = 0; i < 16; i++) {
    tail = ALPHABET[Number(r & 31n)]! + tail;
    r >>= 5n;
  }
  return timePart(time) + tail;
}

function timePart(ms: number): string {
  let head = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[t % 32]! + head;
    t = Math.floor(t / 32);
  }
  return head;
}

/** The smallest id that can be minted at `ms`: a keyset bound for "created at or after". */
export function idFloor(ms: number): string {
  return timePart(ms) + '0'.repeat(16);
}

/**
 * Request ids (`X-Request-Id`, the error envelope's `requestId`, audit entries): a prefix drawn
 * once per source (50 random bits, so per process) and a counter, such as `k3f9x2abq7-1z`.
 * Unique across restarts and replicas as far as the prefix is (a collision needs some 2^25
 * starts); cheaper per request than a UUID, and shorter on the wire (decisions K39).
 */
export function requestIds(): () => string {
  let prefix = '';
  for (const b of randomBytes(10)) prefix += ALPHABET[b & 31]!;
  let count = 0;
  return () => `${prefix}-${(++count).toString(36)}`;
}
