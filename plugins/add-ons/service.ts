import { join } from 'node:path';
import { physicalTableName, publicRef } from '../../addons-sdk/src/manifest/index.js';
import { AppError, defineServiceRef, type Kernel, type SecretBox } from '../../kernel/api.js';
import { publicAdminRef } from '../public-admin/provides.js';
import { AddonConnections, type ConnectionStatus } from './connect/connect.js';
import { builtInKeys, Catalog } from './lifecycle/catalog.js';
import { InstalledStore, type InstalledAddon } from './lifecycle/installed.js';
import { InstanceStore } from './lifecycle/instances.js';
import { AddonLifecycle } from './lifecycle/lifecycle.js';
import { PackageStore } from './lifecycle/packages.js';
import { settingsForm, settingsView, type SettingFormField } from './lifecycle/settings-values.js';
import type { AddonsOptions } from './options.js';
import type { AddonName, AddonsProvides } from './provides.js';
import { AddonRuntime } from './runtime/runtime.js';
import { SurfaceFiles } from './surfaces/bundle.js';
import { AddonDomains } from './surfaces/domains.js';
import { addonsDb, type AddonsDb } from './tables.js';

export interface AddonView {
  key: string;
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  connectionId: string | null;
  tables: string[];
  endpoints: string[];
  surfaces: Array<{ name: string; kind: string; title: string }>;
  capabilities: string[];
  actions: string[];
  hooks: string[];
  peak: number;
  appKeyId: string | null;
  settings: Record<string, string | number | boolean>;
  secretsSet: string[];
  settingsSchema: SettingFormField[];
  installedAt: number;
  updatedAt: number;
  /** What connect asks for (D29): its kind, a secret connection's fields (names and labels), an OAuth connection's scopes; null when the add-on declares none. */
  connect: {
    kind: 'secret' | 'oauth2';
    fields: Array<{ name: string; label: string; description?: string; optional: boolean }>;
    scopes: string[];
  } | null;
  connected: boolean;
  connectedAt: number | null;
  /** When the stored OAuth access token expires (it is refreshed when the add-on next runs); null otherwise. */
  connectionExpiresAt: number | null;
}

/** Listeners told when an add-on was installed, changed or removed (the runtime reloads it). */
type ChangeListener = (key: string) => void | Promise<void>;

/**
 * The add-ons plugin's hub: it owns the stores and the parts (lifecycle, runtime, surfaces,
 * connect), tells them of changes, and shows an installed add-on as the API does.
 */
export class AddonService implements AddonsProvides {
  readonly db: AddonsDb;
  readonly packages: PackageStore;
  readonly catalog: Catalog;
  readonly installed: InstalledStore;
  /** Named instances of apps (D28). */
  readonly instances: InstanceStore;
  readonly box: SecretBox;
  readonly runtime: AddonRuntime;
  /** The files of installed add-ons' surfaces (GET /add-ons/{key}/bundle/…). */
  readonly surfaceFiles = new SurfaceFiles();
  readonly connects: AddonConnections;
  /** Host names serving a public-page surface (D28). */
  readonly domains: AddonDomains;
  /** The add-on lifecycle (D24): staged → installed (enabled ⇄ disabled) → removed. */
  readonly lifecycle: AddonLifecycle;
  private readonly listeners = new Set<ChangeListener>();

  constructor(
    private readonly kernel: Kernel,
    options: AddonsOptions = {},
  ) {
    this.db = addonsDb(kernel.db);
    this.packages = new PackageStore(this.db, join(kernel.config.dataDir, 'addons', 'packages'), () => kernel.now());
    this.catalog = new Catalog(kernel, options);
    this.installed = new InstalledStore(this.db);
    this.instances = new InstanceStore(this.db);
    this.box = kernel.secrets('addon-settings');
    this.connects = new AddonConnections(kernel, this.db, this.box, options);
    this.runtime = new AddonRuntime(kernel, this, options);
    this.domains = new AddonDomains(kernel, this.db);
    const { installed, instances, packages, connects, domains, box } = this;
    this.lifecycle = new AddonLifecycle(
      kernel,
      { installed, instances, packages, connects, domains, box, require: (key) => this.require(key), changed: (key) => this.changed(key) },
      options,
    );
    // A removed app's names go with it (installed.remove deletes the rows).
    this.onChange(() => this.domains.reload());
  }

  async installedCount(): Promise<number> {
    return (await this.installed.list()).length;
  }

  async installedKeys(): Promise<{ key: string; builtIn: boolean }[]> {
    const shipped = new Set(builtInKeys());
    return (await this.installed.list()).map((a) => ({ key: a.key, builtIn: shipped.has(a.key) }));
  }

  onChange(listener: ChangeListener): void {
    this.listeners.add(listener);
  }

  private async changed(key: string): Promise<void> {
    for (const l of this.listeners) await l(key);
  }

  private get publicAdmin() {
    return this.kernel.plugin(publicAdminRef);
  }

  async require(key: string): Promise<InstalledAddon> {
    const a = await this.installed.get(key);
    if (!a) throw new AppError('ADDON_NOT_FOUND', { params: { key } });
    return a;
  }

  /** AddonsProvides.names (provides.ts). */
  async names(): Promise<AddonName[]> {
    return (await this.installed.list()).map((a) => ({ key: a.key, name: a.manifest.name, description: a.manifest.description, enabled: a.enabled }));
  }

  /** AddonsProvides.stamp (provides.ts). */
  stamp(): Promise<string> {
    return this.installed.stamp();
  }

  async view(a: InstalledAddon): Promise<AddonView> {
    return (await this.views([a]))[0]!;
  }

  /** The views of installed add-ons, with their app keys and connections read in one query each. */
  async views(list: readonly InstalledAddon[]): Promise<AddonView[]> {
    const keys = list.map((a) => a.key);
    const [appKeyIds, connections] = await Promise.all([
      this.publicAdmin.apps.appKeyIds(keys.filter((_k, i) => list[i]!.manifest.endpoints.length > 0)),
      this.connects.statuses(keys.filter((_k, i) => list[i]!.manifest.connect)),
    ]);
    return list.map((a) => this.viewOf(a, appKeyIds.get(a.key) ?? null, connections.get(a.key) ?? null));
  }

  private viewOf(a: InstalledAddon, appKeyId: string | null, connection: ConnectionStatus | null): AddonView {
    const m = a.manifest;
    const { values, secretsSet } = settingsView(m.settings, a.settings);
    return {
      key: a.key,
      name: m.name,
      version: a.version,
      description: m.description,
      enabled: a.enabled,
      connectionId: a.connectionId,
      tables: m.tables.map((t) => physicalTableName(m.key, t.name)),
      endpoints: m.endpoints.map((e) => publicRef(m.key, e.ref)),
      surfaces: m.surfaces.map((s) => ({ name: s.name, kind: s.kind, title: s.title })),
      capabilities: [...m.capabilities],
      actions: [...m.actions],
      hooks: [...m.hooks],
      peak: m.peak,
      appKeyId,
      settings: values,
      secretsSet,
      settingsSchema: settingsForm(m.settings),
      installedAt: a.installedAt,
      updatedAt: a.updatedAt,
      ...connectView(a, connection),
    };
  }
}

/** The whole service, for this plugin's own routes and jobs (no other plugin reaches add-ons). */
export const addonServiceRef = defineServiceRef<AddonService>('add-ons');

/** What the view says of an add-on's connect (D29): never the fields' values. */
function connectView(a: InstalledAddon, status: ConnectionStatus | null): Pick<AddonView, 'connect' | 'connected' | 'connectedAt' | 'connectionExpiresAt'> {
  const c = a.manifest.connect;
  if (!c) return { connect: null, connected: false, connectedAt: null, connectionExpiresAt: null };
  return {
    connect: {
      kind: c.kind,
      fields:
        c.kind === 'secret'
          ? c.fields.map((f) => ({
              name: f.name,
              label: f.label,
              ...(f.description === undefined ? {} : { description: f.description }),
              optional: f.optional === true,
            }))
          : [],
      scopes: c.kind === 'oauth2' ? [...c.scopes] : [],
    },
    connected: status !== null,
    connectedAt: status?.connectedAt ?? null,
    connectionExpiresAt: status?.expiresAt ?? null,
  };
}
