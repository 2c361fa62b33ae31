import type { AuditLog } from './audit.js';
import type { Config } from './config.js';
import type { SecretBox, TokenSigner } from './crypto.js';
import type { HostRoutes } from './http/host-routes.js';
import type { Mailer } from './mail/mailer.js';
import type { NotificationService } from './notifications.js';
import type { EventBus } from './events/bus.js';
import type { FileStore } from './files/types.js';
import type { PermissionCatalog } from './identity/permissions.js';
import type { PasswordGuard } from './identity/password-guard.js';
import type { CachedPrincipals } from './identity/principal-cache.js';
import type { IdentityService } from './identity/service.js';
import type { Schedules } from './jobs/schedules.js';
import type { JobQueue } from './jobs/types.js';
import type { Logger } from './logger.js';
import type { MetaRelocator } from './meta/relocate.js';
import type { MetaStore } from './meta/store.js';
import type { MetaDb } from './meta/types.js';
import type { RowWriteHooks } from './write-hooks.js';
import type { SandboxHost } from './sandbox/host.js';
import type { ServingState } from './serving.js';
import type { SettingsStore } from './settings.js';
import type { ServiceRef } from './plugin/service-ref.js';

/** What the kernel gives every plugin: its services, and the plugins it declared it requires. */
export interface Kernel {
  readonly config: Config;
  readonly log: Logger;
  readonly meta: MetaStore;
  /** MR1: moves the meta store to another database (plugins/meta's job). */
  readonly relocation: MetaRelocator;
  readonly db: MetaDb;
  readonly events: EventBus;
  readonly identity: IdentityService;
  /** Who a session cookie or an `adm_sk_` key is, from memory while nothing about them changed. */
  readonly principals: CachedPrincipals;
  /** Hooks around row writes of the data API and the public API (add-ons' beforeWrite/afterWrite). */
  readonly rowWrites: RowWriteHooks;
  /** Failed password checks per account and address (D8), shared by every route that checks one. */
  readonly passwordGuard: PasswordGuard;
  readonly permissions: PermissionCatalog;
  readonly settings: SettingsStore;
  readonly audit: AuditLog;
  readonly mailer: Mailer;
  readonly notifications: NotificationService;
  /** K45: uploads, reports and exports, kept where every replica reads them (kernel/files). */
  readonly files: FileStore;
  /** D13: the persistent job queue (kernel/jobs). */
  readonly jobs: JobQueue;
  /**
   * K49: the scheduler (croner, a time zone per schedule, one claim per due time across replicas,
   * then a job). Plugins register their schedule sources and call `reload()` after a change.
   */
  readonly schedules: Schedules;
  /**
   * D25: runs add-on code in the supervised sandbox child (started at boot when an add-on with code is installed, decisions AO37). Its host
   * calls go to the handler the add-ons plugin sets with `setHostCallHandler`.
   */
  readonly sandbox: SandboxHost;
  /** D28: host names mapped to an add-on's surface; set by the add-ons plugin, applied before routing. */
  readonly hosts: HostRoutes;
  /** A box that seals secrets at rest under a key for this purpose only. */
  secrets(purpose: string): SecretBox;
  /** Signs tokens handed out and taken back unchanged (list cursors), under a key for this purpose only. */
  signer(purpose: string): TokenSigner;
  readonly version: string;
  /** Unique per process; tells replicas apart. */
  readonly instanceId: string;
  readonly startedAt: number;
  /** A drain under way, storage seen full: what readiness reports beside the meta store. */
  readonly serving: ServingState;
  now(): number;
  /**
   * The value a plugin's `setup` provided, its own or one listed in `requires`, through the
   * provider's reference (its provides.ts).
   */
  plugin<T>(ref: ServiceRef<T>): T;
  /** The loaded route tree (for OpenAPI and tooling). */
  routes(): readonly LoadedRoute[];
}

export interface LoadedRoute {
  plugin: string;
  definition: import('./contract/route.js').RouteDefinition;
}
