import { defineServiceRef, type Kernel, type TokenSigner } from '../../kernel/api.js';
import { connectionsRef, type ConnectionsProvides } from '../connections/provides.js';
import { publicAdminRef, type PublicAdminProvides } from '../public-admin/provides.js';
import { schemaRef } from '../schema/provides.js';
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
    this.tables = new TableCache(() => kernel.plugin(schemaRef), now);
    this.keys = new KeyCache(this.admin, now);
    this.admin.onEndpointsChanged(() => this.tables.clear());
    this.cursors = kernel.signer('public.cursor');
    // A deleted connection's customer sessions end with it (their endpoints are gone too).
    this.connections.onRemove(async (id, trx) => ({ publicSessions: await CustomerSessions.removeConnection(publicApiDb(trx), id) }));
  }

  get admin(): PublicAdminProvides {
    return this.kernel.plugin(publicAdminRef);
  }

  get connections(): ConnectionsProvides {
    return this.kernel.plugin(connectionsRef);
  }

  now(): number {
    return this.kernel.now();
  }

  close(): void {
    this.keys.close();
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const publicApiServiceRef = defineServiceRef<PublicApi>('public-api');
