import type { ErrorIssue } from '../errors.js';
import type { KernelTables } from '../meta/types.js';
import type { Job, JobDeclaration } from './types.js';

export type JobRow = KernelTables['jobs'];

/** MySQL's TEXT holds 64 KiB; a job carries references and filters, not data. */
export const JSON_MAX_BYTES = 60_000;

const num = (v: number | null): number | null => (v === null ? null : Number(v));

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function rowToJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    payload: parseJson(row.payload),
    progress: num(row.progress),
    progressMessage: row.progress_message,
    result: parseJson(row.result),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
    cancelRequested: Boolean(Number(row.cancel_requested)),
    subject: row.subject ?? null,
  };
}

/** JSON text within the size limit, or null when the value cannot be stored (cycles, BigInt, too large). */
export function encodeJson(value: unknown): string | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    return null;
  }
  if (text === undefined || Buffer.byteLength(text, 'utf8') > JSON_MAX_BYTES) return null;
  return text;
}

/**
 * The payload as the kind's schema reads it, or the issues (paths relative to the payload, so
 * a route prefixes `body.payload`).
 */
export function checkPayload(decl: JobDeclaration, payload: unknown): { ok: true; value: unknown; json: string } | { ok: false; issues: ErrorIssue[] } {
  let value = payload;
  if (decl.schema) {
    const out = decl.schema.safeParse(payload);
    if (!out.success) return { ok: false, issues: out.error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code, message: i.message })) };
    value = out.data;
  }
  const json = encodeJson(value);
  if (json === null) return { ok: false, issues: [{ path: '', code: 'too_big', message: `The payload must be JSON of at most ${JSON_MAX_BYTES} bytes.` }] };
  return { ok: true, value, json };
}

/** The kind's name for what the job works on; a name the kind cannot give (an error, over 200 characters) is none. */
export function subjectOf(decl: JobDeclaration, payload: unknown): string | null {
  if (!decl.subject) return null;
  let subject: string | null;
  try {
    subject = decl.subject(payload);
  } catch {
    return null;
  }
  return typeof subject === 'string' && subject.length > 0 && subject.length <= 200 ? subject : null;
}
