import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableIndex } from '../../kernel/api.js';

export type ReportTables = {
  /** One scheduled report (issue 28 §4); source, recipients and the last run's error are JSON text. */
  scheduled_reports: {
    id: string;
    name: string;
    owner_id: string;
    source: string;
    /** The page a view or dashboard source reads (PAGE_IN_USE while set); null for a table source. */
    page_id: string | null;
    /** The connection a table source reads: the report goes with the connection. */
    connection_id: string | null;
    format: string;
    cron: string;
    time_zone: string;
    recipients: string;
    subject: string;
    message: string;
    enabled: number;
    failures: number;
    disabled_reason: string | null;
    last_job_id: string | null;
    last_run_at: number | null;
    last_state: string | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
  };
  /** One row per run (a due time, or a "run now" job): its mail goes once whatever the attempts (RP4). */
  scheduled_report_runs: {
    report_id: string;
    run_key: string;
    job_id: string;
    state: string;
    created_at: number;
    finished_at: number | null;
    /** The addresses this run has mailed, JSON: a retry after one address failed mails only the rest. */
    mailed_to: string | null;
  };
};

export type ReportsDb = Kysely<KernelTables & ReportTables>;
export const reportsDb = (db: MetaDb): ReportsDb => db.withTables<ReportTables>();

export const reportMigrations: Migration[] = [
  {
    name: '0001_scheduled_reports',
    async up(db) {
      await db.schema
        .createTable('scheduled_reports')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('source', largeText(db), (c) => c.notNull())
        .addColumn('page_id', 'varchar(64)')
        .addColumn('connection_id', 'varchar(64)')
        .addColumn('format', 'varchar(16)', (c) => c.notNull())
        .addColumn('cron', 'varchar(120)', (c) => c.notNull())
        .addColumn('time_zone', 'varchar(64)', (c) => c.notNull())
        .addColumn('recipients', largeText(db), (c) => c.notNull())
        .addColumn('subject', 'varchar(200)', (c) => c.notNull())
        .addColumn('message', largeText(db), (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'varchar(1000)')
        .addColumn('last_job_id', 'varchar(32)')
        .addColumn('last_run_at', 'bigint')
        .addColumn('last_state', 'varchar(16)')
        .addColumn('last_error', largeText(db))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await rerunnableIndex(db.schema.createIndex('scheduled_reports_owner').on('scheduled_reports').columns(['owner_id', 'id']).execute());
      await rerunnableIndex(db.schema.createIndex('scheduled_reports_page').on('scheduled_reports').column('page_id').execute());
      await rerunnableIndex(db.schema.createIndex('scheduled_reports_connection').on('scheduled_reports').column('connection_id').execute());
      await db.schema
        .createTable('scheduled_report_runs')
        .ifNotExists()
        .addColumn('report_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('run_key', 'varchar(64)', (c) => c.notNull())
        .addColumn('job_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addPrimaryKeyConstraint('scheduled_report_runs_pk', ['report_id', 'run_key'])
        .execute();
    },
  },
  {
    name: '0002_report_runs_mailed_to',
    async up(db) {
      await db.schema.alterTable('scheduled_report_runs').addColumn('mailed_to', largeText(db)).execute();
    },
  },
];
