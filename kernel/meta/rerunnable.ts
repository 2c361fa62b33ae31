/**
 * MySQL commits DDL implicitly, so a plugin's migration there must survive a rerun (K10): a step
 * that meets what an earlier run of it made carries on.
 */
type DdlError = { errno?: number; code?: string; message?: string };

/** CREATE INDEX (MySQL 8 has no IF NOT EXISTS): a rerun meets the index it made (1061). */
export async function rerunnableIndex(step: Promise<unknown>): Promise<void> {
  await step.catch((err: DdlError) => {
    if (err?.errno !== 1061 && !/already exists/i.test(String(err?.message))) throw err;
  });
}

/** ALTER TABLE … ADD COLUMN: a rerun meets the column it added (MySQL 1060, PostgreSQL 42701, SQLite "duplicate column"). */
export async function rerunnableColumn(step: Promise<unknown>): Promise<void> {
  await step.catch((err: DdlError) => {
    if (err?.errno !== 1060 && err?.code !== '42701' && !/duplicate column/i.test(String(err?.message))) throw err;
  });
}
