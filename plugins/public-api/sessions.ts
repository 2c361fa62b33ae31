import type { FastifyRequest } from 'fastify';
import { AppError, hashToken, newId, randomToken } from '../../kernel/api.js';
import type { EndpointDefinition, PublicKey } from '../public-admin/provides.js';
import { SESSION_HEADER } from './http/cors.js';
import type { PublicApiDb } from './tables.js';

/** A claimed customer session: it reaches only rows whose identity columns hold these values. */
export interface CustomerSession {
  id: string;
  connectionId: string;
  table: string;
  identity: Record<string, unknown>;
  expiresAt: number;
}

/** A session lasts a day from its claim; the guest claims again with the same code. */
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

function sessionRefused(reason: 'missing' | 'invalid'): AppError {
  return new AppError('PUBLIC_SESSION_REQUIRED', { params: { reason } });
}

export class CustomerSessions {
  constructor(
    private readonly db: PublicApiDb,
    private readonly now: () => number,
  ) {}

  /** Deletes the sessions on a connection's endpoints (the connection is being removed, in `db`'s transaction). */
  static async removeConnection(db: PublicApiDb, connectionId: string): Promise<number> {
    const res = await db.deleteFrom('public_sessions').where('connection_id', '=', connectionId).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async create(key: PublicKey, endpoint: EndpointDefinition, identity: Record<string, unknown>): Promise<{ token: string; expiresAt: number }> {
    const token = randomToken(32);
    const at = this.now();
    const expiresAt = at + SESSION_LIFETIME_MS;
    await this.db
      .insertInto('public_sessions')
      .values({
        id: newId(at),
        token_hash: hashToken(token),
        key_id: key.id,
        connection_id: endpoint.connectionId,
        table_ref: endpoint.table,
        ref: endpoint.ref,
        identity: JSON.stringify(identity),
        created_at: at,
        expires_at: expiresAt,
        ended_at: null,
      })
      .execute();
    // Expired sessions are of no use to anyone; sweeping here keeps the table small without a job.
    await this.db
      .deleteFrom('public_sessions')
      .where('expires_at', '<', at - SESSION_LIFETIME_MS)
      .execute();
    return { token, expiresAt };
  }

  /**
   * The session the request carries, or null without the header. A header that names no live
   * session of this key is refused rather than ignored, so a guest learns it has ended.
   */
  async fromRequest(req: FastifyRequest, key: PublicKey): Promise<CustomerSession | null> {
    const raw = req.headers[SESSION_HEADER];
    if (raw === undefined) return null;
    const token = Array.isArray(raw) ? raw[0] : raw;
    if (!token || token.length > 200) throw sessionRefused('invalid');
    const row = await this.db
      .selectFrom('public_sessions')
      .select(['id', 'key_id', 'connection_id', 'table_ref', 'identity', 'expires_at', 'ended_at'])
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.key_id !== key.id || row.ended_at !== null || Number(row.expires_at) <= this.now()) throw sessionRefused('invalid');
    return {
      id: row.id,
      connectionId: row.connection_id,
      table: row.table_ref,
      identity: JSON.parse(row.identity) as Record<string, unknown>,
      expiresAt: Number(row.expires_at),
    };
  }

  /** Ends the request's session; ending one that has already ended is not an error. */
  async end(req: FastifyRequest, key: PublicKey): Promise<void> {
    const raw = req.headers[SESSION_HEADER];
    const token = Array.isArray(raw) ? raw[0] : raw;
    if (!token) throw sessionRefused('missing');
    await this.db
      .updateTable('public_sessions')
      .set({ ended_at: this.now() })
      .where('token_hash', '=', hashToken(token))
      .where('key_id', '=', key.id)
      .where('ended_at', 'is', null)
      .execute();
  }

  static required(): AppError {
    return sessionRefused('missing');
  }
}

/** Does the session belong to this endpoint's table (the only rows its identity can name)? */
export function sessionFits(session: CustomerSession, endpoint: EndpointDefinition): boolean {
  return session.connectionId === endpoint.connectionId && session.table === endpoint.table;
}
