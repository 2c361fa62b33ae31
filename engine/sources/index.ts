/** Pools on the operators' own databases ("sources"): opening, limits, testing, health. */
export { driverFor } from './dialects/index.js';
export { FAILURE_REASONS, REASON_MESSAGES, SourceFailure, type FailureReason } from './failure.js';
export { hasPgClient, withPgClient } from './pg-client.js';
export { SourceRegistry, variantKey, type SourceRegistryOptions, type SourceSpec } from './registry.js';
export { META_MARKER_KEY, MetaStoreGuard, sameMysqlDatabase, type MetaStoreRef } from './meta-guard.js';
export { testConnection, testTarget, type TestOptions, type TestSuccess } from './test-connection.js';
export {
  DEFAULT_SOURCE_SETTINGS,
  SOURCE_DIALECTS,
  TLS_MODES,
  type SourceDb,
  type SourceDialect,
  type SourceSettings,
  type SourceTarget,
  type TlsMode,
} from './types.js';
export { describeTarget, MAX_URL_LENGTH, parseSourceUrl, type ParsedUrl } from './url.js';
