import { defineAddon, type AddonContext, type AfterWriteEvent, type BeforeWriteEvent, type Json } from '@svc/addons-sdk';

/**
 * Storefront's server code. It runs in the instance's sandbox: no Node API, no Web Crypto, no
 * TextEncoder, only `ctx`. So the webhook's HMAC-SHA256 signature is computed here, in plain
 * JavaScript (a few hundred bytes per message, well inside the call's CPU budget).
 */

// --- SHA-256 and HMAC (FIPS 180-4, RFC 2104) --------------------------------------------------

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as TextEncoder does). */
export function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

export function sha256(data: Uint8Array): Uint8Array {
  const bitLength = data.length * 8;
  const padded = new Uint8Array((((data.length + 9 + 63) >> 6) << 6) >>> 0);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15]!, 7) ^ rotr(w[i - 15]!, 18) ^ (w[i - 15]! >>> 3);
      const s1 = rotr(w[i - 2]!, 17) ^ rotr(w[i - 2]!, 19) ^ (w[i - 2]! >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0]! + a) >>> 0;
    h[1] = (h[1]! + b) >>> 0;
    h[2] = (h[2]! + c) >>> 0;
    h[3] = (h[3]! + d) >>> 0;
    h[4] = (h[4]! + e) >>> 0;
    h[5] = (h[5]! + f) >>> 0;
    h[6] = (h[6]! + g) >>> 0;
    h[7] = (h[7]! + hh) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((v, i) => outView.setUint32(i * 4, v));
  return out;
}

export function hmacSha256Hex(key: string, message: string): string {
  let k = utf8(key);
  if (k.length > 64) k = sha256(k);
  const block = new Uint8Array(64);
  block.set(k);
  const inner = new Uint8Array(64);
  const outer = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i]! ^ 0x36;
    outer[i] = block[i]! ^ 0x5c;
  }
  const msg = utf8(message);
  const first = new Uint8Array(64 + msg.length);
  first.set(inner);
  first.set(msg, 64);
  const innerHash = sha256(first);
  const second = new Uint8Array(64 + 32);
  second.set(outer);
  second.set(innerHash, 64);
  return Array.from(sha256(second), (b) => b.toString(16).padStart(2, '0')).join('');
}

// --- the app --------------------------------------------------------------------------------

export const SIGNATURE_HEADER = 'x-storefront-signature';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const text = (value: unknown, fallback: string): string => (typeof value === 'string' && value ? value : fallback);
const record = (input: Json): Record<string, Json> => (input && typeof input === 'object' && !Array.isArray(input) ? input : {});

/** What the webhook receives for one message: the message as stored, email included (the operator's own receiver). */
export function webhookBody(row: Record<string, Json>): string {
  return JSON.stringify({
    event: 'contact_message.created',
    message: { id: row.id ?? null, name: row.name ?? null, email: row.email ?? null, message: row.message ?? null, created_at: row.created_at ?? null },
  });
}

// --- order requests --------------------------------------------------------------------------

/** At most this many lines in one order request, each of at most MAX_QUANTITY. */
export const MAX_LINES = 50;
export const MAX_QUANTITY = 99;

export interface OrderLine {
  product_id: number;
  name: string;
  /** The product's price when the order was sent, a decimal string (`12.50`). */
  price: string;
  quantity: number;
}

/** `12.5`, `"12.50"` → 1250 cents; NaN for what is not a price. */
const cents = (price: Json | undefined): number => Math.round(Number(price) * 100);
const money = (c: number): string => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

/** What a cart sends as `items`: `[{product_id, quantity}]` (an array, or its JSON as text). Null when it is not that. */
export function cartOf(items: Json | undefined): Array<{ product_id: number; quantity: number }> | string {
  let value: Json | undefined = items;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as Json;
    } catch {
      return 'The order is not one the shop can read.';
    }
  }
  if (!Array.isArray(value) || value.length === 0) return 'Your cart is empty.';
  if (value.length > MAX_LINES) return `An order request takes at most ${MAX_LINES} products.`;
  const out = new Map<number, number>();
  for (const line of value) {
    const { product_id: id, quantity } = record(line);
    if (
      typeof id !== 'number' ||
      !Number.isInteger(id) ||
      typeof quantity !== 'number' ||
      !Number.isInteger(quantity) ||
      quantity < 1 ||
      quantity > MAX_QUANTITY
    )
      return `Each product is ordered 1 to ${MAX_QUANTITY} times.`;
    out.set(id, Math.min(MAX_QUANTITY, (out.get(id) ?? 0) + quantity));
  }
  return [...out].map(([product_id, quantity]) => ({ product_id, quantity }));
}

/** The order's lines as the staff e-mail lists them. */
export function linesText(lines: OrderLine[]): string {
  return lines.map((l) => `${l.quantity} × ${l.name} at ${l.price} = ${money(cents(l.price) * l.quantity)}`).join('\n');
}

// --- product images ------------------------------------------------------------------------

/** The largest image the products page may send (decoded bytes): an action's body is at most 64 KiB of JSON. */
export const MAX_IMAGE_BYTES = 45_000;
const IMAGE_TYPES: Record<string, (head: number[]) => boolean> = {
  'image/jpeg': (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
  'image/png': (h) => h[0] === 0x89 && h[1] === 0x50 && h[2] === 0x4e && h[3] === 0x47,
  'image/webp': (h) => h[0] === 0x52 && h[1] === 0x49 && h[2] === 0x46 && h[3] === 0x46 && h[8] === 0x57 && h[9] === 0x45 && h[10] === 0x42 && h[11] === 0x50,
};
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first bytes of base64 text (the sandbox has no atob): enough to check an image's signature. */
export function base64Head(b64: string, bytes: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + 3 < b64.length && out.length < bytes; i += 4) {
    const n = (B64.indexOf(b64[i]!) << 18) | (B64.indexOf(b64[i + 1]!) << 12) | ((B64.indexOf(b64[i + 2]!) & 63) << 6) | (B64.indexOf(b64[i + 3]!) & 63);
    out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
  }
  return out.slice(0, bytes);
}

/** Why `{contentType, data}` is not an image the shop takes, or null. */
export function imageProblem(contentType: Json | undefined, data: Json | undefined): string | null {
  if (typeof contentType !== 'string' || !(contentType in IMAGE_TYPES)) return 'An image is a JPEG, PNG or WebP file.';
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data))
    return 'The image was not sent as base64.';
  const bytes = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (bytes > MAX_IMAGE_BYTES) return `The image is over ${MAX_IMAGE_BYTES / 1000} kB: make it smaller.`;
  if (!IMAGE_TYPES[contentType]!(base64Head(data, 12))) return `The file is not a ${contentType.slice(6).toUpperCase()} image.`;
  return null;
}

const nowWire = () => new Date().toISOString().slice(0, 19);

export default defineAddon({
  hooks: {
    /** A contact message needs a name, an e-mail address that looks like one and a message; all are trimmed. */
    'contact_messages.beforeWrite': (_ctx: AddonContext, event: BeforeWriteEvent) => {
      if (event.op === 'delete') return undefined;
      const values = { ...event.values };
      for (const column of ['name', 'email', 'message'] as const) {
        const value = values[column];
        if (typeof value === 'string') values[column] = column === 'message' ? value.trim() : value.trim().replace(/\s+/g, ' ');
      }
      if (event.op === 'insert') {
        if (!values.name) return { refuse: 'Please give your name.' };
        if (typeof values.email !== 'string' || !EMAIL.test(values.email)) return { refuse: 'Please give an e-mail address we can answer to.' };
        if (!values.message) return { refuse: 'Please write a message.' };
        if (typeof values.message === 'string' && values.message.length > 5000) return { refuse: 'Please keep the message under 5,000 characters.' };
      }
      return { values };
    },
    /** Each new message is posted to the connected webhook, signed when a signing secret is set. */
    'contact_messages.afterWrite': async (ctx: AddonContext, event: AfterWriteEvent) => {
      if (event.op !== 'insert') return;
      const url = ctx.connection?.webhookUrl;
      if (!url || !ctx.fetch) return;
      const body = webhookBody(event.row);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'svc-admin-storefront/1' };
      const secret = ctx.connection?.signingSecret;
      if (secret) headers[SIGNATURE_HEADER] = `sha256=${hmacSha256Hex(secret, body)}`;
      const id = event.row.id ?? null;
      try {
        const res = await ctx.fetch(url, { method: 'POST', headers, body });
        if (res.status < 200 || res.status > 299) ctx.log.warn('the webhook refused a contact message', { status: res.status, id });
      } catch (err) {
        // Network features off, a host not allowed, the receiver down: the message is kept all the same.
        const e = err as { code?: unknown; message?: unknown };
        ctx.log.warn('the webhook could not be reached', { code: typeof e.code === 'string' ? e.code : null, message: String(e.message ?? err), id });
      }
    },
    /**
     * An order request from the cart: the lines are priced here from the products table (what
     * the page sent as prices or total is not taken), inactive or unknown products refused.
     */
    'orders.beforeWrite': async (ctx: AddonContext, event: BeforeWriteEvent) => {
      if (event.op !== 'insert') return undefined;
      const values = { ...event.values };
      for (const column of ['name', 'email', 'phone'] as const) {
        const value = values[column];
        if (typeof value === 'string') values[column] = value.trim().replace(/\s+/g, ' ') || null;
      }
      if (typeof values.note === 'string') values.note = values.note.trim() || null;
      if (!values.name) return { refuse: 'Please give your name.' };
      if (typeof values.email !== 'string' || !EMAIL.test(values.email)) return { refuse: 'Please give an e-mail address we can answer to.' };
      if (typeof values.note === 'string' && values.note.length > 2000) return { refuse: 'Please keep the note under 2,000 characters.' };
      const cart = cartOf(values.items);
      if (typeof cart === 'string') return { refuse: cart };
      const found = await ctx.db.list('products', { where: { id: { in: cart.map((l) => l.product_id) }, active: true }, limit: MAX_LINES });
      const byId = new Map(found.rows.map((r) => [r.id, r]));
      const lines: OrderLine[] = [];
      let total = 0;
      for (const { product_id, quantity } of cart) {
        const product = byId.get(product_id);
        if (!product) return { refuse: 'A product in your cart is no longer sold. Please remove it and send the order again.' };
        const price = cents(product.price);
        lines.push({ product_id, name: String(product.name), price: money(price), quantity });
        total += price * quantity;
      }
      return { values: { ...values, items: JSON.stringify(lines), total: money(total), currency: text(ctx.settings.currency, 'EUR') } };
    },
    /** Each order request is mailed to the shop's orders address (the row is kept whether or not it can be). */
    'orders.afterWrite': async (ctx: AddonContext, event: AfterWriteEvent) => {
      if (event.op !== 'insert') return;
      const to = typeof ctx.settings.ordersEmail === 'string' ? ctx.settings.ordersEmail.trim() : '';
      const id = event.row.id ?? null;
      if (!to) {
        ctx.log.warn('an order request is kept but not mailed: set the Orders e-mail setting', { id });
        return;
      }
      let lines: OrderLine[] = [];
      try {
        lines = JSON.parse(String(event.row.items)) as OrderLine[];
      } catch {
        /* the row as staff wrote it: mailed without lines */
      }
      try {
        await ctx.mail.send('order-request', to, {
          shop: text(ctx.settings.shopName, 'Our shop'),
          orderId: id,
          name: event.row.name ?? '',
          email: event.row.email ?? '',
          phone: event.row.phone ?? '(none)',
          note: event.row.note ?? '(none)',
          lines: linesText(lines),
          total: String(event.row.total ?? ''),
          currency: event.row.currency ?? '',
        });
      } catch (err) {
        ctx.log.warn('the order request could not be mailed', { id, message: String((err as { message?: unknown }).message ?? err) });
      }
    },
  },
  actions: {
    /** For the shop page (the app key may call it): the shop's name and currency from the settings. */
    shop: (ctx: AddonContext) => ({ name: text(ctx.settings.shopName, 'Our shop'), currency: text(ctx.settings.currency, 'EUR') }),
    /** Staff only: messages, newest first, 50 a page; `{unread: true}` for the unread ones, `{cursor}` for the next page. */
    listMessages: async (ctx: AddonContext, input: Json) => {
      const { unread, cursor } = record(input);
      const res = await ctx.db.list('contact_messages', {
        ...(unread === true ? { where: { read: false } } : {}),
        sort: ['-created_at', '-id'],
        limit: 50,
        ...(typeof cursor === 'string' && cursor ? { cursor } : {}),
      });
      return { messages: res.rows, next: res.next };
    },
    /** Staff only: `{id, read?}` marks one message read (or unread with `read: false`); answers the message. */
    markRead: async (ctx: AddonContext, input: Json) => {
      const { id, read } = record(input);
      if (typeof id !== 'number' && typeof id !== 'string') ctx.refuse(400, 'MESSAGE_ID_INVALID', 'Give the id of a message.');
      if (!(await ctx.db.get('contact_messages', id))) ctx.refuse(404, 'MESSAGE_NOT_FOUND', `There is no message ${id}: it may have been deleted.`, { id });
      return ctx.db.update('contact_messages', id, { read: read !== false });
    },
    /** Staff only: the products for the image page, 100 a page by name (`{cursor}` for the next), without their images. */
    listProducts: async (ctx: AddonContext, input: Json) => {
      const { cursor } = record(input);
      const res = await ctx.db.list('products', { sort: ['name', 'id'], limit: 100, ...(typeof cursor === 'string' && cursor ? { cursor } : {}) });
      return {
        products: res.rows.map((p) => ({
          id: p.id ?? null,
          name: p.name ?? '',
          price: p.price ?? null,
          active: p.active === true || p.active === 1,
          hasImage: Boolean(p.image_updated_at),
        })),
        next: res.next,
      };
    },
    /** Staff only: `{productId, contentType, data}` (base64, up to MAX_IMAGE_BYTES) becomes the product's image. */
    setImage: async (ctx: AddonContext, input: Json) => {
      const { productId, contentType, data } = record(input);
      if (typeof productId !== 'number' || !Number.isInteger(productId)) ctx.refuse(400, 'PRODUCT_ID_INVALID', 'Give the id of a product (a whole number).');
      const problem = imageProblem(contentType, data);
      if (problem) ctx.refuse(400, 'IMAGE_INVALID', problem);
      if (!(await ctx.db.get('products', productId)))
        ctx.refuse(404, 'PRODUCT_NOT_FOUND', `There is no product ${productId}: it may have been deleted.`, { productId });
      const values = { content_type: contentType as string, data: { $binary: data as string }, updated_at: nowWire() };
      if (await ctx.db.get('product_images', productId)) await ctx.db.update('product_images', productId, values);
      else await ctx.db.insert('product_images', { product_id: productId, ...values });
      await ctx.db.update('products', productId, { image_updated_at: values.updated_at });
      return { productId, contentType: contentType as string, bytes: Math.floor(((data as string).length * 3) / 4) };
    },
    /** Staff only: `{productId}` removes the product's image. */
    removeImage: async (ctx: AddonContext, input: Json) => {
      const { productId } = record(input);
      if (typeof productId !== 'number' || !Number.isInteger(productId)) ctx.refuse(400, 'PRODUCT_ID_INVALID', 'Give the id of a product (a whole number).');
      const removed = await ctx.db.delete('product_images', productId);
      await ctx.db.update('products', productId, { image_updated_at: null });
      return { productId, removed };
    },
  },
});
