import { AppError, type AuditActor, hashToken, newId, randomToken, type SecretBox } from '../../kernel/api.js';
import type { DataDb } from './tables.js';

export const UNDO_TTL_MS = 10 * 60_000;
/** Spent and expired records stay a day, so a late click answers UNDO_EXPIRED rather than 404. */
const KEEP_AFTER_EXPIRY_MS = 24 * 3600_000;
const PURGE_EVERY_MS = 60_000;

/** One row change as undo needs it: full rows in wire form, every column (secret ones too). */
export interface UndoStep {
  op: 'create' | 'update' | 'delete';
  table: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** The columns the write set (update), compared with the current row before undoing. */
  columns: string[];
}

export interface UndoRecord {
  id: string;
  actor: AuditActor;
  connectionId: string;
  steps: UndoStep[];
}

/**
 * Undo records in the meta store. The token is a capability: only its hash is stored. The
 * steps hold row values, personal and secret columns included, so they are sealed with a key
 * of their own and dropped once the record has expired.
 */
export class UndoStore {
  private lastPurge = 0;

  constructor(
    private readonly db: DataDb,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  async create(actor: AuditActor, connectionId: string, action: string, steps: UndoStep[], ttlMs: number = UNDO_TTL_MS): Promise<string> {
    const token = randomToken(24);
    const now = this.now();
    await this.db
      .insertInto('data_undo')
      .values({
        id: newId(now),
        token_hash: hashToken(token),
        actor_type: actor.type,
        actor_id: actor.id,
        connection_id: connectionId,
        action,
        payload: this.box.encrypt(JSON.stringify(steps)),
        created_at: now,
        expires_at: now + ttlMs,
        used_at: null,
      })
      .execute();
    await this.purge(now);
    return token;
  }

  /**
   * Answers the record a token may still undo, without marking it: 404 for an unknown token,
   * 403 for someone else's (admins excepted), 409 UNDO_EXPIRED / UNDO_ALREADY_USED. The caller
   * marks it (markUsed) once the revert has committed on the source (DA12).
   */
  async open(token: string, actor: AuditActor, isAdmin: boolean): Promise<UndoRecord> {
    const row = await this.db.selectFrom('data_undo').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', { message: 'No undo with this token.' });
    if (!isAdmin && (row.actor_type !== actor.type || row.actor_id !== actor.id)) {
      throw new AppError('FORBIDDEN', {
        message: 'Only the author of a change (or an admin) may undo it.',
        params: { permission: 'data.write', reason: 'not-author' },
      });
    }
    if (row.used_at !== null) throw new AppError('UNDO_ALREADY_USED');
    if (Number(row.expires_at) <= this.now() || row.payload === null) throw new AppError('UNDO_EXPIRED', { params: { expiredAt: Number(row.expires_at) } });
    return {
      id: row.id,
      actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id },
      connectionId: row.connection_id,
      steps: JSON.parse(this.box.decrypt(row.payload)) as UndoStep[],
    };
  }

  /** After the revert committed: false when another attempt marked it first. */
  async markUsed(id: string): Promise<boolean> {
    const res = await this.db.updateTable('data_undo').set({ used_at: this.now() }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** At most once a minute per process: row values leave the store when their record expires. */
  private async purge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await this.db.updateTable('data_undo').set({ payload: null }).where('expires_at', '<=', now).where('payload', 'is not', null).execute();
    await this.db
      .deleteFrom('data_undo')
      .where('expires_at', '<', now - KEEP_AFTER_EXPIRY_MS)
      .execute();
  }
}
