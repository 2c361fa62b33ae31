/**
 * The messages between the API process (host.ts) and the sandbox host child
 * (sandbox-host-worker.ts), over the fork IPC channel. Add-on values only ever travel as JSON
 * strings, parsed where they are used.
 */
import type { Capability } from '../../addons-sdk/src/manifest/addon.js';

export type HostCapability = Capability | 'log';

export interface CallTarget {
  kind: 'hook' | 'action';
  name: string;
}

/** API process → child: run one hook or action. `code` is left out when the child has it (by hash). */
export interface CallMessage {
  t: 'call';
  id: number;
  addon: { key: string; version: string; hash: string; limits: { memoryMb: number; cpuMs: number }; capabilities: Capability[] };
  code?: string;
  target: CallTarget;
  /** JSON of `{instance, settings, connection}`. */
  context: string;
  /** JSON of the input. */
  input: string;
  /** What is left of the call's wall time (a call run again after a crash has less than the whole). */
  wallMs: number;
  maxHostCalls: number;
}

/** API process → child: the answer to a host call, a JSON envelope `{ok:true,value}` | `{ok:false,code,message}`. */
export interface HostResultMessage {
  t: 'host-result';
  id: number;
  hc: number;
  envelope: string;
}

/** API process → child: drop the warm contexts of these add-on versions (`key@version`): removed, disabled or upgraded. */
export interface ForgetMessage {
  t: 'forget';
  addons: string[];
}

export type ToChild = CallMessage | HostResultMessage | ForgetMessage | { t: 'stop' };

export type FailureCode = 'ADDON_FAILED' | 'ADDON_MEMORY_LIMIT' | 'ADDON_TIMEOUT' | 'ADDON_HOST_CALLS' | 'ADDON_HANDLER_MISSING';

export type ResultMessage =
  | { t: 'result'; id: number; ok: true; /** JSON of the value */ value: string }
  /** `stack`: ADDON_FAILED's, as the isolate wrote it (frames of server.js). */
  | { t: 'result'; id: number; ok: false; code: FailureCode; message?: string; stack?: string }
  /** An action's `ctx.refuse`: JSON of `{status, code, message, params}`, checked again by the API process. */
  | { t: 'result'; id: number; ok: false; code: 'ADDON_ACTION_REFUSED'; refusal: string };

export type ToParent =
  | { t: 'ready' }
  | ResultMessage
  /** An isolate of this add-on (`key@version`) hit a fatal V8 error: the child exits right after, and the crash is this add-on's. */
  | { t: 'fatal'; addon: string }
  /**
   * A call that had to make its add-on's context first (a cold start: isolate, bootstrap, module
   * compiled) starts its wall time now: `setupMs` went to that setup, which is the platform's work,
   * not the add-on's, and under load could use up the whole wall time before the add-on ran.
   */
  | { t: 'began'; id: number; setupMs: number }
  /** The child does not have this call's code (it forgot it): send the call again with it. */
  | { t: 'need-code'; id: number }
  /** A host call; `hc` numbers it within the call. Log calls have `hc: -1` and get no answer. */
  | { t: 'host'; id: number; hc: number; capability: HostCapability; method: string; args: string };

export const HOST_METHODS: Readonly<Record<HostCapability, readonly string[]>> = {
  db: ['list', 'get', 'insert', 'update', 'delete'],
  kv: ['get', 'set', 'delete'],
  'mail.send': ['send'],
  fetch: ['fetch'],
  log: ['info', 'warn', 'error'],
};
