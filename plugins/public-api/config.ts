import type { PublicKey, PublicMethod } from '../public-admin/provides.js';
import { openKey, type PublicCall } from './access.js';
import { PAGE } from './read.js';
import { endpointForKey } from './scope.js';
import { PUBLIC_LIMITS, PublicLimits } from './limits/policy.js';
import type { PublicApi } from './service.js';
import { BATCH_MAX } from './write.js';
import type { PublicConfig } from './schemas.js';
import { publicMaxLength } from './values.js';

/** What the calling key reaches: endpoints with the methods it holds there, their columns, shapes and limits. */
export async function publicConfig(api: PublicApi, call: PublicCall): Promise<PublicConfig> {
  const { caller } = await openKey(api, call, 'read');
  const key: PublicKey = caller.key;
  const endpoints: PublicConfig['endpoints'] = [];
  for (const ref of [...new Set(key.grants.map((g) => g.ref))].sort()) {
    const endpoint = endpointForKey(await api.admin.endpoint(ref), key);
    if (!endpoint || (endpoint.serviceRole && key.kind !== 'server')) continue;
    const methods = endpoint.methods.filter((m: PublicMethod) => api.admin.grants(key, ref, m));
    const table = methods.length ? await api.tables.get(endpoint.connectionId, endpoint.table) : null;
    if (!table) continue;
    const hidden = new Set(endpoint.sensitive);
    const columns = table.columns.filter(
      (c) => endpoint.columns.includes(c.name) && !hidden.has(c.name) && !c.display.secret && !(endpoint.virtual && c.display.personal),
    );
    const names = new Set(columns.map((c) => c.name));
    const only = (list: readonly string[]) => list.filter((n) => names.has(n));
    const writable = new Set(only(endpoint.writable));
    const b = endpoint.booking;
    endpoints.push({
      ref,
      methods,
      shape: endpoint.shape,
      rateLimit: endpoint.rateLimit,
      needsSession: endpoint.needsSession,
      primaryKey: endpoint.pk.filter((c) => names.has(c)),
      columns: columns.map((c) => ({
        name: c.name,
        type: c.type,
        nullable: c.nullable,
        writable: writable.has(c.name),
        // What a write may hold: a text column without a bound of its own takes the public cap.
        maxLength: writable.has(c.name) ? publicMaxLength(c) : c.maxLength,
        enumValues: c.enumValues,
      })),
      filterable: only(endpoint.filterable),
      orderable: only(endpoint.orderable),
      searchable: only(endpoint.searchable),
      identity: endpoint.identity,
      timeZone: endpoint.timeZone,
      booking: b
        ? {
            timeColumn: b.timeColumn,
            partyColumn: b.partyColumn,
            capacity: b.capacity,
            slotMinutes: b.slotMinutes,
            windowDays: b.windowDays,
            cancelBeforeMinutes: b.cancelBeforeMinutes,
          }
        : null,
    });
  }
  const peak = key.appKey?.peak ?? 1;
  return {
    key: { kind: key.kind, prefix: key.prefix, expiresAt: key.expiresAt },
    endpoints,
    limits: {
      pageSize: PAGE.default,
      maxPageSize: PAGE.max,
      batchMax: BATCH_MAX,
      perAddressPerMinute: PUBLIC_LIMITS.perAddress,
      keyReadsPerMinute: key.kind === 'browser' ? PublicLimits.keyBudget('read', peak) : null,
      keyWritesPerMinute: key.kind === 'browser' ? PublicLimits.keyBudget('write', peak) : null,
      visitorReadsPerMinute: key.kind === 'browser' ? PublicLimits.visitorBudget('read', peak) : null,
      visitorWritesPerMinute: key.kind === 'browser' ? PublicLimits.visitorBudget('write', peak) : null,
    },
  };
}
