import { AppEndpoints } from './apps/apps.js';
import { defineServiceRef, type Kernel, type MetaDb } from '../../kernel/api.js';
import { i18nRef } from '../i18n/provides.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef } from '../schema/provides.js';
import { buildCatalog, type Catalog } from './endpoints/catalog.js';
import { EmailTemplates } from './templates/email-templates.js';
import { KeyStore } from './keys/keys.js';
import { RevocationListeners } from './keys/revocations.js';
import type { EndpointDefinition, PublicAdminProvides, PublicApiState, PublicKey, PublicMethod } from './provides.js';
import { ScopeStore } from './endpoints/scopes-store.js';
import { PublicSwitch } from './switch/switch.js';
import { publicAdminDb } from './tables.js';
import { UsageCounter } from './keys/usage.js';

/** How long the data plane may serve an endpoint another replica (or a schema change) altered. */
export const CATALOG_TTL_MS = 2_000;

export const PUBLIC_CHANGED = 'public.changed';
export const PUBLIC_KEY_REVOKED = 'public.key-revoked';

/**
 * The control plane: switch, keys, endpoints, usage; what the data plane reads through
 * PublicAdminProvides. Key lookups are never cached here (one indexed query by hash), so a
 * revocation is seen by the very next request on every replica sharing the meta store.
 */
export class PublicAdminService implements PublicAdminProvides {
  readonly scopes: ScopeStore;
  readonly keys: KeyStore;
  readonly switch: PublicSwitch;
  readonly usage: UsageCounter;
  readonly templates: EmailTemplates;
  readonly apps: AppEndpoints;
  private readonly revocations: RevocationListeners;
  private cache: Catalog | null = null;
  private building: Promise<Catalog> | null = null;
  private generation = 0;

  constructor(private readonly kernel: Kernel) {
    kernel.plugin(connectionsRef).onRemove((id, trx) => this.removeConnection(id, trx));
    const db = publicAdminDb(kernel.db);
    const now = () => kernel.now();
    this.scopes = new ScopeStore(db, now);
    this.keys = new KeyStore(db, kernel.secrets('public-keys'), now);
    this.switch = new PublicSwitch(kernel.settings, kernel.config, now);
    this.usage = new UsageCounter(db, now, kernel.log);
    this.templates = new EmailTemplates(db, kernel.mailer, now, () => kernel.plugin(i18nRef).enabledLocales());
    this.apps = new AppEndpoints(this);
    this.revocations = new RevocationListeners(this.keys, this.switch, now, kernel.log);
  }

  private get connections() {
    return this.kernel.plugin(connectionsRef);
  }

  private get schema() {
    return this.kernel.plugin(schemaRef);
  }

  /** Every endpoint as of now (admin routes), refreshing the data plane's copy on the way. */
  async catalog(): Promise<Catalog> {
    const generation = this.generation;
    const built = await buildCatalog(this.connections, this.schema, this.scopes, this.kernel.now());
    if (generation === this.generation) this.cache = built;
    return built;
  }

  /** The data plane's copy: rebuilt after a local change at once, else at most CATALOG_TTL_MS old. */
  private async cached(): Promise<Catalog> {
    const hit = this.cache;
    if (hit && this.kernel.now() - hit.builtAt < CATALOG_TTL_MS) return hit;
    this.building ??= this.catalog().finally(() => (this.building = null));
    return this.building;
  }

  /**
   * The connection is being deleted (ConnectionsProvides.onRemove): its stored endpoints go, and
   * every key's grants of them; the keys themselves stay (an admin may grant them anew).
   */
  async removeConnection(connectionId: string, trx: MetaDb): Promise<Record<string, number>> {
    const db = publicAdminDb(trx);
    const scopes = db.selectFrom('public_scopes').select('id').where('connection_id', '=', connectionId);
    const grants = await db.deleteFrom('public_key_grants').where('scope_id', 'in', scopes).executeTakeFirst();
    const endpoints = await db.deleteFrom('public_scopes').where('connection_id', '=', connectionId).executeTakeFirst();
    this.invalidate();
    return { publicEndpoints: Number(endpoints.numDeletedRows), publicKeyGrants: Number(grants.numDeletedRows) };
  }

  /** After any local write to endpoints or keys. */
  invalidate(): void {
    this.generation++;
    this.cache = null;
  }

  /** Tells dashboards and other replicas something changed; a lost event only delays them to the TTL. */
  async announce(what: 'switch' | 'scopes' | 'keys', id: string | null = null): Promise<void> {
    await this.kernel.events.publish(PUBLIC_CHANGED, { what, id }).catch(() => undefined);
  }

  async revoked(keyId: string): Promise<void> {
    this.invalidate();
    this.revocations.emit(keyId);
    await this.kernel.events.publish(PUBLIC_KEY_REVOKED, { id: keyId }).catch(() => undefined);
  }

  async switchChanged(after: PublicApiState): Promise<void> {
    this.revocations.switched(after.enabled);
    await this.announce('switch');
  }

  // PublicAdminProvides

  state(): Promise<PublicApiState> {
    return this.switch.state();
  }

  enabledNow(): boolean | null {
    return this.switch.enabledNow();
  }

  hasLiveKey(): Promise<boolean> {
    return this.keys.anyLive();
  }

  keyForToken(token: string): Promise<PublicKey | null> {
    return this.keys.forToken(token);
  }

  endpoint(ref: string): Promise<EndpointDefinition | null> {
    // Asked on every public request: a fresh copy answers without another async step.
    const hit = this.cache;
    if (hit && this.kernel.now() - hit.builtAt < CATALOG_TTL_MS) return Promise.resolve(hit.byRef.get(ref)?.def ?? null);
    return this.cached().then((catalog) => catalog.byRef.get(ref)?.def ?? null);
  }

  async endpoints(connectionId?: string): Promise<EndpointDefinition[]> {
    return (await this.cached()).entries.map((e) => e.def).filter((d) => connectionId === undefined || d.connectionId === connectionId);
  }

  grants(key: PublicKey, ref: string, method: PublicMethod): boolean {
    return key.grants.some((g) => g.ref === ref && g.methods.includes(method));
  }

  private readonly endpointListeners = new Set<() => void>();

  onEndpointsChanged(listener: () => void): () => void {
    this.endpointListeners.add(listener);
    return () => this.endpointListeners.delete(listener);
  }

  /** An app's tables or endpoints changed here (install, upgrade): the data plane forgets what it kept of them. */
  endpointsChanged(): void {
    this.invalidate();
    for (const l of this.endpointListeners) l();
  }

  onRevoked(listener: (keyId: string) => void): () => void {
    return this.revocations.add(listener);
  }

  recordUsage(keyId: string, n = 1): void {
    this.usage.record(keyId, n);
  }

  async close(): Promise<void> {
    this.revocations.close();
    await this.usage.flush();
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const publicAdminServiceRef = defineServiceRef<PublicAdminService>('public-admin');
