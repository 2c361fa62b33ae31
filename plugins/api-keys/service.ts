import { z } from 'zod';
import { defineServiceRef, API_KEY_PREFIX, AppError, hashToken, type KernelTables, type MetaDb, newId, randomToken } from '../../kernel/api.js';

export const apiKeySchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    roleId: z.string(),
    prefix: z.string().describe('The first 12 characters of the secret, to recognise a key'),
    createdAt: z.number(),
    lastUsedAt: z.number().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof apiKeySchema>;

type KeyRow = KernelTables['api_keys'];
const PREFIX_LENGTH = 12;

function toApiKey(row: Pick<KeyRow, 'id' | 'name' | 'role_id' | 'prefix' | 'created_at' | 'last_used_at'>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    roleId: row.role_id,
    prefix: row.prefix,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}

/** Role-bound keys (D21). The secret exists only in the creation answer; the store keeps its hash. */
export class ApiKeysService {
  constructor(
    private readonly db: MetaDb,
    private readonly now: () => number,
  ) {}

  async list(limit: number, afterId: string | undefined): Promise<{ apiKeys: ApiKey[]; nextId: string | null }> {
    let q = this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'role_id', 'prefix', 'created_at', 'last_used_at'])
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .limit(limit + 1);
    if (afterId) q = q.where('id', '>', afterId);
    const rows = await q.execute();
    const page = rows.slice(0, limit);
    return { apiKeys: page.map(toApiKey), nextId: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  async create(input: { name: string; roleId: string; createdBy: string }): Promise<{ apiKey: ApiKey; secret: string }> {
    const now = this.now();
    const secret = API_KEY_PREFIX + randomToken(32);
    const row: KeyRow = {
      id: newId(now),
      name: input.name,
      role_id: input.roleId,
      prefix: secret.slice(0, PREFIX_LENGTH),
      key_hash: hashToken(secret),
      created_by: input.createdBy,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    return { apiKey: toApiKey(row), secret };
  }

  /** The kernel looks every key up on every request, so the next request with it is refused. */
  async revoke(id: string): Promise<ApiKey> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', { params: { apiKeyId: id } });
    const res = await this.db.updateTable('api_keys').set({ revoked_at: this.now() }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError('NOT_FOUND', { params: { apiKeyId: id } });
    return toApiKey(row);
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const apiKeysServiceRef = defineServiceRef<ApiKeysService>('api-keys');
