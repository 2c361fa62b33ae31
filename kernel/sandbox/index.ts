/** The sandbox host (DESIGN D25) and the outbound fetch add-ons use; see docs/decisions-pending/sandbox.md. */
export {
  SandboxHost,
  type HostCallHandler,
  type HostCapability,
  type SandboxAddon,
  type SandboxCall,
  type SandboxHostOptions,
  type SandboxLogger,
  type SandboxStats,
} from './host.js';
export { hostAllowed, isPublicAddress, outboundFetch, outboundHosts, type FetchInit, type FetchResponse, type OutboundOptions } from './outbound-fetch.js';
export { SANDBOX_ERRORS, type SandboxErrorCode } from './errors.js';
export { crashCause } from './failure-log.js';
export type { CallTarget } from './protocol.js';
