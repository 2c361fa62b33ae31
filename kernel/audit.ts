import type { MetaDb } from './meta/types.js';
import { newId } from './ids.js';
import type { Principal } from './identity/principal.js';

export type ActorType = 'user' | 'apiKey' | 'anonymous' | 'system';

export interface AuditActor {
  type: ActorType;
  id: string | null;
}

export interface AuditEntryInput {
  action: string;
  target?: { type: string; id: string | null } | null;
  /** Before/after values or the request's input; secrets are redacted before storage. */
  diff?: unknown;
  /** Overrides the request's principal (sign-in records the user signing in). */
  actor?: AuditActor;
}

export interface AuditContext {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

const SECRET_KEY = /pass(word)?|secret|token|hash|totp|recovery|otp|^code$|apikey|api_key|cookie|authorization|url$/i;

/** Replaces the value of every key that names a secret, at any depth. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redactSecrets(v, depth + 1);
  return out;
}

export function actorOf(principal: Principal | null): AuditActor {
  if (!principal) return { type: 'anonymous', id: null };
  return principal.kind === 'apiKey' ? { type: 'apiKey', id: principal.apiKeyId } : { type: 'user', id: principal.userId };
}

/** The append-only audit trail. Nothing in the API edits or deletes an entry. */
export class AuditLog {
  constructor(
    private readonly db: MetaDb,
    private readonly now: () => number = Date.now,
  ) {}

  async record(entry: AuditEntryInput, actor: AuditActor, ctx: AuditContext): Promise<string> {
    const id = newId(this.now());
    await this.db
      .insertInto('audit_log')
      .values({
        id,
        ...this.columns(entry, actor),
        ip: ctx.ip,
        user_agent: ctx.userAgent ? ctx.userAgent.slice(0, 500) : null,
        request_id: ctx.requestId,
      })
      .execute();
    return id;
  }

  /**
   * Turns an entry recorded before a write (decisions K44) into what the write finally says. The
   * id and time stay (the trail is in the order writes began): no key of the row is rewritten.
   */
  async settle(id: string, entry: AuditEntryInput, actor: AuditActor): Promise<void> {
    const { at: _at, ...changed } = this.columns(entry, actor);
    await this.db.updateTable('audit_log').set(changed).where('id', '=', id).execute();
  }

  /** Removes an entry recorded before a write that then did not happen (refused, or failed). */
  async withdraw(id: string): Promise<void> {
    await this.db.deleteFrom('audit_log').where('id', '=', id).execute();
  }

  private columns(entry: AuditEntryInput, actor: AuditActor) {
    const diff = entry.diff === undefined ? null : JSON.stringify(redactSecrets(entry.diff));
    return {
      at: this.now(),
      actor_type: entry.actor?.type ?? actor.type,
      actor_id: entry.actor ? entry.actor.id : actor.id,
      action: entry.action.slice(0, 100),
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      diff: diff && diff.length > 60_000 ? JSON.stringify({ truncated: true }) : diff,
    };
  }
}
