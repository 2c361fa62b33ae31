/**
 * The shape of an action call a framed app page posts to the dashboard (the action bridge,
 * bridge.ts). No imports: the rules are tested on their own.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Id = string | number;

/** Under the action route's 64 KiB body limit, with room for `{"input":…}`. */
export const MAX_INPUT_BYTES = 60 * 1024;
/** Calls of one frame running at once; more are answered BRIDGE_BUSY rather than queued. */
export const MAX_IN_FLIGHT = 8;
/** The manifest's rule for action names (addons-sdk manifest). */
const ACTION_NAME = /^[a-z][a-zA-Z0-9_-]{0,63}$/;
const KEYS = new Set(['type', 'id', 'name', 'input']);

export type Reading = { kind: 'call'; id: Id; name: string; input: Json } | { kind: 'refuse'; id: Id; code: 'BRIDGE_INPUT_TOO_LARGE'; message: string } | null;

/**
 * `{type: 'svc-action', id, name, input}` and nothing else: anything of another shape is
 * ignored (null). The input is re-read as JSON, so what reaches the API is plain JSON whatever
 * the structured clone carried.
 */
export function readMessage(data: unknown): Reading {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const m = data as Record<string, unknown>;
  if (m.type !== 'svc-action' || Object.keys(m).some((k) => !KEYS.has(k))) return null;
  const id = m.id;
  if (!((typeof id === 'string' && id.length > 0 && id.length <= 200) || (typeof id === 'number' && Number.isFinite(id)))) return null;
  if (typeof m.name !== 'string' || !ACTION_NAME.test(m.name)) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(m.input ?? null);
  } catch {
    return null; // cyclic, BigInt
  }
  if (text === undefined) return null;
  if (new TextEncoder().encode(text).length > MAX_INPUT_BYTES)
    return { kind: 'refuse', id, code: 'BRIDGE_INPUT_TOO_LARGE', message: `The input is over ${MAX_INPUT_BYTES} bytes of JSON.` };
  return { kind: 'call', id, name: m.name, input: JSON.parse(text) as Json };
}
