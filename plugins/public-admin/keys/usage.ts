import type { Logger } from '../../../kernel/api.js';
import type { PublicAdminDb } from '../tables.js';

const HOUR = 3600_000;
export const USAGE_FLUSH_MS = 60_000;
const DAY = 24 * HOUR;

/**
 * The keys page's requests-in-24-hours figure (seed Limits rule 5): counted in memory per key
 * and hour, added to the store at most once a minute, so it is approximate (it spans the last
 * 24 to 25 hours, and a process that dies loses its last minute). Replicas add to the same rows.
 */
export class UsageCounter {
  /** Unwritten counts by key id, then hour: no string made per request (this runs on every one). */
  private pending = new Map<string, Map<number, number>>();
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
    const hour = Math.floor(this.now() / HOUR) * HOUR;
    let hours = this.pending.get(keyId);
    if (!hours) this.pending.set(keyId, (hours = new Map()));
    hours.set(hour, (hours.get(hour) ?? 0) + n);
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

  private async write(batch: Map<string, Map<number, number>>): Promise<void> {
    try {
      for (const [keyId, hour, n] of slots(batch)) {
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
    for (const [keyId, hour, n] of slots(this.pending)) if (out.has(keyId) && hour >= since) out.set(keyId, out.get(keyId)! + n);
    return out;
  }
}

function* slots(pending: Map<string, Map<number, number>>): Generator<[string, number, number]> {
  for (const [keyId, hours] of pending) for (const [hour, n] of hours) yield [keyId, hour, n];
}
