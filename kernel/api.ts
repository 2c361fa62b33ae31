/**
 * The kernel's one face for plugins (docs/architecture.md, "Import rules"): everything a plugin
 * may import from kernel/ is here, and test/boundaries.test.ts fails on a plugin importing any
 * other kernel file. What a plugin may use is then one file to read, and a kernel file can move
 * without touching a plugin. Add to it when a plugin needs more; keep the kernel's machinery
 * (app, loader, mounting, the sandbox child) out.
 */

// Declaring a plugin, its routes, jobs and audiences.
export { definePlugin, type Migration, type PluginDefinition } from './plugin/manifest.js';
export { defineServiceRef, type ServiceRef } from './plugin/service-ref.js';
export type { Kernel } from './kernel-services.js';
export {
  HANDLED,
  SIGNED_IN,
  noBody,
  rawResponse,
  reply,
  route,
  type RouteContext,
  type RouteDefinition,
  type RouteResult,
  type RouteSchema,
} from './contract/route.js';
export { dataOf, errorEnvelopeSchema, listQuery, okSchema, recordIdList, rowObject, rowObjects } from './contract/shapes.js';
export { cursorField, encodeCursor } from './contract/cursor.js';
export { defineAudience, provideAudience, type Admit, type AudienceGate } from './contract/audience.js';
export { AppError, type ErrorIssue } from './errors.js';
export { isLocale, LOCALE_PATTERN, localeField, toBcp47 } from './locale.js';

// HTTP helpers for routes the contract cannot fully say (sign-in, uploads, links, surfaces).
export { API_PREFIX } from './http/routes.js';
export { authenticate, checkOrigin, clearSessionCookie, presentedSessionToken, sessionCookieOf, setSessionCookie } from './http/authenticate.js';
export { assertOwnHost, isOwnHost, isOwnName, linkBase } from './http/trusted-host.js';
export { multipartBodyError, multipartBuffer, multipartFile } from './http/multipart.js';
export { matchesIfNoneMatch, strongEtag } from './http/etag.js';
export { logRequestError, toAppError } from './http/errors.js';
export { DOCUMENT_ONLY } from './http/security-headers.js';
export type { HostRoutes } from './http/host-routes.js';

// Identity: principals, permissions, users, preferences, passwords and tokens.
export type { Principal } from './identity/principal.js';
export { ownerOf, requireUser } from './identity/principal.js';
export {
  BUILTIN_ROLES,
  effectivePermissions,
  PermissionSet,
  grantAllows,
  type BuiltinRole,
  type ColumnGrant,
  type Grant,
  type GrantScope,
  type ScopedGrant,
} from './identity/permissions.js';
export {
  EMPTY_PREFS,
  PREF_KEYS,
  prefFields,
  prefsSchema,
  resolvePrefs,
  resolvedPrefsSchema,
  type PrefKey,
  type Prefs,
  type ResolvedPrefs,
} from './identity/prefs.js';
export { effectivePermissionsShape, emailField, nameField, newPasswordField, passwordField, toUser, userSchema, type User } from './identity/schemas.js';
export { API_KEY_PREFIX, SESSION_ABSOLUTE_MS } from './identity/service.js';
export { ownedBy, ownedPage } from './identity/owned.js';
export { hashCostDiffers, hashPassword, verifyPassword } from './identity/passwords.js';
export { constantTimeEqual, hashToken, randomToken } from './identity/tokens.js';
export type { PasswordGuard } from './identity/password-guard.js';

// The meta store.
export type { KernelTables, MetaDb } from './meta/types.js';
export type { MetaStore } from './meta/store.js';
export { RelocationFailed, TargetConnectFailure, type RelocationResult, type RelocationTarget } from './meta/relocate.js';
export type { MetaDialectHelpers } from './meta/dialects/types.js';
export { MetaReadCache } from './meta/read-cache.js';
export { largeText } from './meta/column-types.js';
export { rerunnableColumn, rerunnableIndex } from './meta/rerunnable.js';

// Kernel services' types and helpers: audit, ids, secrets, jobs, files, mail, notifications, row-write hooks.
export { actorOf, type ActorType, type AuditActor, type AuditEntryInput } from './audit.js';
export { idFloor, newId } from './ids.js';
export type { SecretBox, TokenSigner } from './crypto.js';
export type { Config } from './config.js';
export type { Logger } from './logger.js';
export type { SettingsStore } from './settings.js';
export type { DeclaredJobKind, Job, JobContext, JobDeclaration } from './jobs/types.js';
export { JOB_STATES, jobSchema, toJobView, type JobView } from './jobs/schema.js';
export { JobError } from './jobs/errors.js';
export {
  CLAIM_RETENTION_MS,
  RELOAD_MS as SCHEDULE_RELOAD_MS,
  claimScheduledRun,
  type ScheduledItem,
  type ScheduledJob,
  type ScheduleSource,
  type Schedules,
} from './jobs/schedules.js';
export { rowToJob } from './jobs/rows.js';
export { attemptHolds, attemptOf, stillHolds, type Attempt } from './jobs/fence.js';
export type { FileStore, StoredFile } from './files/types.js';
export {
  EMAIL_SETTINGS_KEY,
  MAIL_ATTACHMENTS_MAX_BYTES,
  attachmentBytes,
  type MailAttachment,
  type Mailer,
  type OutgoingMail,
  type SendResult,
  type StoredSmtp,
} from './mail/mailer.js';
export { MailTemplates, fallbackChain, type MailTemplate } from './mail/templates.js';
export { notificationSchema, toNotification, type Notification } from './notifications.js';
export type { AfterRowWrite, BeforeRowWrite, RowWriteHookProvider, RowWriteHooks, RowWriteOp } from './write-hooks.js';
export { SlidingWindowCounter } from './throttle.js';

// The sandbox host as the add-ons plugin drives it.
// Loaded for its effect too: it registers the sandbox's error codes (ADDON_TIMEOUT, …), which a
// plugin may throw as an AppError without importing anything else.
import './sandbox/errors.js';
export type { HostCapability, Json, SandboxAddon } from './sandbox/host.js';
export type { AddonFailureLog } from './sandbox/failure-log.js';
export { crashCause, outboundFetch, outboundHosts } from './sandbox/index.js';
export { addonFailureDetail } from './sandbox/failure-log.js';
export { outboundRequest } from './sandbox/outbound-fetch.js';

// The product and the process.
export { LICENSE, PRODUCT_NAME } from './version.js';
export { projectPath } from './paths.js';
export { startWorker } from './workers.js';
export { withDeadline } from './deadline.js';
