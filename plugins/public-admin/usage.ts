import type { Logger } from '../../kernel/logger.js';
import type { PublicAdminDb } from './tables.js';

const HOUR = 3600_000;
export const USAGE_FLUSH_MS = 60_000;
const DAY = 24 * HOUR;

/**
 * The keys page's requests-in-24-hours figure (seed Limits rule 5): counted in memory per key
 * and hour, added to the store at most once a minute, so it is approximate (it spans the last
 * 24 to 25 hours, and a process that dies loses its last minute). Replicas add to the same rows.
 */
export class UsageCounter {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: PublicAdminDb,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly flushMs = USAGE_FLUSH_MS,
  ) {}

  record(keyId: string, n = 1): void {
    if (!(n > 0)) return;
    const slot = `${keyId}\u0000${Math.floor(this.now() / HOUR) * HOUR}`;
    this.pending.set(slot, (this.pending.get(slot) ?? 0) + n);
    // A timer only while something waits, unref'd: an idle instance holds none, and none keeps a process alive.
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what is pending; safe to call at any time (also at shutdown). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write(batch).finally(() => (this.flushing = null));
    await this.flushing;
  }

  private async write(batch: Map<string, number>): Promise<void> {
    try {
      for (const [slot, n] of batch) {
        const [keyId, hourText] = slot.split('\u0000') as [string, string];
        const hour = Number(hourText);
        const add = () =>
          this.db
            .updateTable('public_key_usage')
            .set((eb) => ({ count: eb('count', '+', n) }))
            .where('key_id', '=', keyId)
            .where('hour', '=', hour)
            .executeTakeFirst();
        if (Number((await add()).numUpdatedRows) > 0) continue;
        try {
          await this.db.insertInto('public_key_usage').values({ key_id: keyId, hour, count: n }).execute();
        } catch {
          // Another replica inserted the hour's row first: add to it instead.
          await add();
        }
      }
      await this.db
        .deleteFrom('public_key_usage')
        .where('hour', '<', this.now() - DAY - HOUR)
        .execute();
    } catch (err) {
      // Usage is approximate by design; a meta store hiccup (or a closed store) loses a minute of counts, nothing more.
      this.log.warn({ err: { message: (err as Error).message } }, 'public key usage not written');
    }
  }

  /** Requests per key over the last 24 hours: the stored hours plus this process's unwritten counts. */
  async last24h(keyIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>(keyIds.map((id) => [id, 0]));
    if (keyIds.length === 0) return out;
    const since = Math.floor((this.now() - DAY) / HOUR) * HOUR;
    const rows = await this.db
      .selectFrom('public_key_usage')
      .select(['key_id', (eb) => eb.fn.sum<number | string>('count').as('total')])
      .where('key_id', 'in', keyIds)
      .where('hour', '>=', since)
      .groupBy('key_id')
      .execute();
    for (const r of rows) out.set(r.key_id, Number(r.total));
    for (const [slot, n] of this.pending) {
      const [keyId, hour] = slot.split('\u0000') as [string, string];
      if (out.has(keyId) && Number(hour) >= since) out.set(keyId, out.get(keyId)! + n);
    }
    return out;
  }
}
