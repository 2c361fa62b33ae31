import type { EffectiveTable, SchemaProvides } from '../schema/provides.js';

/** As long as the control plane may serve an endpoint after a schema change (its catalog TTL). */
export const TABLE_TTL_MS = 2_000;

/**
 * The effective tables behind endpoints, briefly cached: building one reads several meta rows,
 * and a public list must not pay that on every request.
 */
export class TableCache {
  private readonly entries = new Map<string, { at: number; table: Promise<EffectiveTable | null> }>();

  constructor(
    private readonly schema: () => SchemaProvides,
    private readonly now: () => number,
  ) {}

  /** Forgets every table (their structure changed here, e.g. an app was upgraded). */
  clear(): void {
    this.entries.clear();
  }

  get(connectionId: string, ref: string): Promise<EffectiveTable | null> {
    const key = `${connectionId}\u0000${ref}`;
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit && at - hit.at < TABLE_TTL_MS && at >= hit.at) return hit.table;
    const table = this.schema()
      .table(connectionId, ref)
      .catch(() => null);
    this.entries.set(key, { at, table });
    if (this.entries.size > 1000) this.entries.delete(this.entries.keys().next().value!);
    return table;
  }
}
