import type { TokenSigner } from '../../kernel/crypto.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { ConnectionsProvides } from '../connections/provides.js';
import type { PublicAdminProvides } from '../public-admin/provides.js';
import type { SchemaProvides } from '../schema/provides.js';
import { KeyCache } from './http/key-cache.js';
import { PublicLimits } from './limits/policy.js';
import { CustomerSessions } from './sessions.js';
import { TableCache } from './table-cache.js';
import { publicApiDb } from './tables.js';

/** What every public route needs; one per app, made in the plugin's setup. */
export class PublicApi {
  readonly limits: PublicLimits;
  readonly sessions: CustomerSessions;
  readonly tables: TableCache;
  readonly keys: KeyCache;
  /** Signs the list cursors this API hands out (decisions DA8). */
  readonly cursors: TokenSigner;

  constructor(readonly kernel: Kernel) {
    const now = () => kernel.now();
    this.limits = new PublicLimits(now);
    this.sessions = new CustomerSessions(publicApiDb(kernel.db), now);
    this.tables = new TableCache(() => kernel.plugin<SchemaProvides>('schema'), now);
    this.keys = new KeyCache(this.admin, now);
    this.admin.onEndpointsChanged(() => this.tables.clear());
    this.cursors = kernel.signer('public.cursor');
    // A deleted connection's customer sessions end with it (their endpoints are gone too).
    this.connections.onRemove(async (id, trx) => ({ publicSessions: await CustomerSessions.removeConnection(publicApiDb(trx), id) }));
  }

  get admin(): PublicAdminProvides {
    return this.kernel.plugin<PublicAdminProvides>('public-admin');
  }

  get connections(): ConnectionsProvides {
    return this.kernel.plugin<ConnectionsProvides>('connections');
  }

  now(): number {
    return this.kernel.now();
  }

  close(): void {
    this.keys.close();
  }
}
