import { registerErrorCodes } from '../errors.js';

/** The sandbox's error codes (DESIGN D25) and the outbound fetch's (D25 `fetch`, D26). */
export const SANDBOX_ERRORS = {
  ADDON_FAILED: { status: 502, message: 'The add-on failed while handling this request.' },
  ADDON_CRASHED: { status: 502, message: 'The add-on sandbox stopped while handling this request; it restarts on the next one.' },
  ADDON_MEMORY_LIMIT: { status: 502, message: 'The add-on used more memory than its limit.' },
  ADDON_TIMEOUT: { status: 504, message: 'The add-on took longer than its time limit.' },
  ADDON_HOST_CALLS: { status: 429, message: 'The add-on made more host calls than one request allows.' },
  ADDON_PAUSED: { status: 503, message: 'The add-on crashed its sandbox repeatedly and is paused for a minute.' },
  ADDON_HANDLER_MISSING: { status: 404, message: 'The add-on has no such hook or action.' },
  /** Never answered under this code: an AddonRefusal carries the add-on's own status and code (failure-log.ts). */
  ADDON_ACTION_REFUSED: { status: 400, message: 'The add-on refused the request.' },
  ADDON_OUTBOUND_REFUSED: { status: 403, message: 'The add-on may not reach this address.' },
  ADDON_FETCH_FAILED: { status: 502, message: "The add-on's outbound request failed." },
  NETWORK_FEATURES_DISABLED: { status: 409, message: 'Network features are turned off on this instance (SVC_NETWORK_FEATURES=false).' },
} as const;

registerErrorCodes(SANDBOX_ERRORS);

export type SandboxErrorCode = keyof typeof SANDBOX_ERRORS;
