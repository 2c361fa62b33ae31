import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableIndex } from '../../kernel/api.js';

/**
 * One row per LLM run (decisions LL3). The prompt and the answer may hold sample rows, so they
 * are sealed (`kernel.secrets('llm.runs')`); the whole row goes after the retention (30 days by
 * default, `limits.retentionDays`).
 */
export type LlmTables = {
  llm_runs: {
    id: string;
    owner_type: 'user' | 'apiKey';
    owner_id: string;
    state: string;
    mode: 'provider' | 'manual';
    request: string;
    connection_id: string;
    /** JSON array of table refs. */
    tables: string;
    sample_rows: number;
    /** Sealed JSON `[{role, content}]`. */
    prompt: string;
    /** Sealed answer text; null until answered. */
    answer: string | null;
    /** JSON of the parsed change set; null until parsed. */
    changes: string | null;
    /** JSON array of strings: why the answer is invalid. */
    problems: string | null;
    /** JSON `{code, message}`. */
    error: string | null;
    /** JSON of the diff's summary once parsed or applied. */
    summary: string | null;
    job_id: string | null;
    /** hashToken of the undo token applied runs hand out. */
    undo_hash: string | null;
    /** The undo token itself, sealed (`kernel.secrets('llm.undo')`), so who applied can undo from another tab (decisions LL10); null once undone. */
    undo_token: string | null;
    /** JSON `{pages, views}`: what an applied run made in the pages plugin, with their updatedAt then; null before apply. */
    made: string | null;
    applied_by_type: string | null;
    applied_by_id: string | null;
    applied_at: number | null;
    undo_expires_at: number | null;
    created_at: number;
    updated_at: number;
  };
};

export type RunRow = LlmTables['llm_runs'];
export type LlmDb = Kysely<KernelTables & LlmTables>;
export const llmDb = (db: MetaDb): LlmDb => db.withTables<LlmTables>();

export const llmMigrations: Migration[] = [
  {
    name: '0001_llm_runs',
    async up(db) {
      await db.schema
        .createTable('llm_runs')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('owner_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('mode', 'varchar(16)', (c) => c.notNull())
        .addColumn('request', 'text', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('tables', 'text', (c) => c.notNull())
        .addColumn('sample_rows', 'integer', (c) => c.notNull())
        .addColumn('prompt', largeText(db), (c) => c.notNull())
        .addColumn('answer', largeText(db))
        .addColumn('changes', largeText(db))
        .addColumn('problems', largeText(db))
        .addColumn('error', 'text')
        .addColumn('summary', 'text')
        .addColumn('job_id', 'varchar(32)')
        .addColumn('undo_hash', 'varchar(128)')
        .addColumn('applied_by_type', 'varchar(8)')
        .addColumn('applied_by_id', 'varchar(32)')
        .addColumn('applied_at', 'bigint')
        .addColumn('undo_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await rerunnableIndex(db.schema.createIndex('llm_runs_owner').on('llm_runs').columns(['owner_type', 'owner_id', 'id']).execute());
      await rerunnableIndex(db.schema.createIndex('llm_runs_connection').on('llm_runs').columns(['connection_id']).execute());
    },
  },
  {
    name: '0002_llm_runs_undo_token_made',
    async up(db) {
      await db.schema.alterTable('llm_runs').addColumn('undo_token', 'text').execute();
      await db.schema.alterTable('llm_runs').addColumn('made', 'text').execute();
    },
  },
];
