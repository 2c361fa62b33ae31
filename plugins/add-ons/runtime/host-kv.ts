import { sql } from 'kysely';
import { AppError, type Json } from '../../../kernel/api.js';
import type { AddonsDb } from '../tables.js';

export const KV_QUOTA_BYTES = 1024 * 1024;
const KEY_MAX = 200;

/** `ctx.kv` (D25): a small store per add-on, 1 MiB of keys and JSON values in all. */
export class HostKv {
  constructor(private readonly db: AddonsDb) {}

  private key(k: unknown): string {
    if (typeof k !== 'string' || k.length === 0 || k.length > KEY_MAX)
      throw new AppError('VALIDATION_FAILED', { message: `A key is text of 1 to ${KEY_MAX} characters.` });
    return k;
  }

  async call(addonKey: string, method: string, args: Json[]): Promise<Json> {
    const k = this.key(args[0]);
    if (method === 'get') {
      const row = await this.db.selectFrom('addon_kv').select('v').where('addon_key', '=', addonKey).where('k', '=', k).executeTakeFirst();
      return row ? (JSON.parse(row.v) as Json) : null;
    }
    if (method === 'delete') {
      await this.db.deleteFrom('addon_kv').where('addon_key', '=', addonKey).where('k', '=', k).execute();
      return null;
    }
    if (method !== 'set') throw new AppError('ADDON_HOST_DENIED', { message: `kv.${method} is not a host function.` });
    const v = JSON.stringify(args[1] ?? null);
    const size = Buffer.byteLength(k) + Buffer.byteLength(v);
    await this.db.transaction().execute(async (trx) => {
      const used = await trx
        .selectFrom('addon_kv')
        .select(sql<number>`coalesce(sum(size), 0)`.as('used'))
        .where('addon_key', '=', addonKey)
        .where('k', '!=', k)
        .executeTakeFirstOrThrow();
      if (Number(used.used) + size > KV_QUOTA_BYTES) throw new AppError('ADDON_KV_FULL', { params: { quota: KV_QUOTA_BYTES } });
      await trx.deleteFrom('addon_kv').where('addon_key', '=', addonKey).where('k', '=', k).execute();
      await trx.insertInto('addon_kv').values({ addon_key: addonKey, k, v, size }).execute();
    });
    return null;
  }
}
