import { AppError, defineServiceRef, type ErrorIssue, type Kernel, newId, type Principal, type ScheduledItem, type ScheduledJob } from '../../kernel/api.js';
import { connectionsRef } from '../connections/provides.js';
import { exportsRef } from '../exports/provides.js';
import { pagesRef } from '../pages/provides.js';
import { schemaRef } from '../schema/provides.js';
import type { CreateReport, PatchReport, Recipient, Report, ReportFormat, ReportSource } from './schemas.js';
import { reportsDb, type ReportsDb, type ReportTables } from './tables.js';
import { viewTarget } from './view-source.js';

export const REPORTS_READ = 'reports.read';
export const REPORTS_WRITE = 'reports.write';
export const REPORTS_ADMIN = 'reports.admin';
export const REPORTS_EXTERNAL = 'reports.external';
export const REPORT_JOB = 'scheduled-reports.run';
/** The owner kind of reports' claims in the kernel's schedule_runs (K49). */
export const REPORT_SCHEDULE_OWNER = 'report';
/** Failed runs in a row that disable a report (RP5). */
export const FAILURES_TO_DISABLE = 3;
/** A report runs at most once an hour (RP2). */
export const MIN_INTERVAL_MS = 3600_000;
export const REPORT_FAILED_NOTIFICATION = 'scheduled-reports.failed';

export type ReportRow = ReportTables['scheduled_reports'];

const TABLE_FORMATS: ReadonlySet<ReportFormat> = new Set(['csv', 'xlsx', 'jsonl']);

/** The owner as they are now (RP4): null when the user is gone or not active (suspended, invited). */
export async function principalOf(kernel: Kernel, userId: string): Promise<Principal | null> {
  const user = await kernel.db.selectFrom('users').select(['id', 'status']).where('id', '=', userId).executeTakeFirst();
  if (!user || user.status !== 'active') return null;
  const { roleIds, permissions } = await kernel.identity.rolesOfUser(userId);
  return { kind: 'session', userId, sessionId: null, apiKeyId: null, roleIds, permissions };
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export class ReportsService {
  readonly db: ReportsDb;

  constructor(readonly kernel: Kernel) {
    this.db = reportsDb(kernel.db);
  }

  // ---- the schedule source (K49) ----

  async scheduledItems(): Promise<ScheduledItem[]> {
    const rows = await this.db.selectFrom('scheduled_reports').select(['id', 'cron', 'time_zone']).where('enabled', '=', 1).execute();
    return rows.map((r) => ({ id: r.id, cron: r.cron, timeZone: r.time_zone }));
  }

  async scheduledJob(item: ScheduledItem, dueAt: number): Promise<ScheduledJob | null> {
    const row = await this.row(item.id);
    // Changed or disabled since the timer was set: the next reload sets the right one.
    if (!row || !row.enabled || row.cron !== item.cron || row.time_zone !== item.timeZone) return null;
    return { kind: REPORT_JOB, payload: { reportId: row.id, dueAt }, maxAttempts: 3, createdBy: row.owner_id };
  }

  // ---- reading ----

  row(id: string): Promise<ReportRow | undefined> {
    return this.db.selectFrom('scheduled_reports').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The report when the caller owns it or holds reports.admin; else 404 alike. */
  async visible(principal: Principal, id: string): Promise<ReportRow> {
    const row = await this.row(id);
    if (!row || (row.owner_id !== principal.userId && !principal.permissions.has(REPORTS_ADMIN)))
      throw new AppError('NOT_FOUND', { message: 'No scheduled report with this id.' });
    return row;
  }

  async page(principal: Principal, limit: number, cursor: string | undefined): Promise<{ rows: ReportRow[]; next: string | null }> {
    let q = this.db
      .selectFrom('scheduled_reports')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (!principal.permissions.has(REPORTS_ADMIN)) q = q.where('owner_id', '=', principal.userId ?? '');
    if (cursor) q = q.where('id', '<', cursor);
    const rows = await q.execute();
    const more = rows.length > limit;
    if (more) rows.pop();
    return { rows, next: more ? rows[rows.length - 1]!.id : null };
  }

  async toReport(row: ReportRow): Promise<Report> {
    let nextRunAt: number | null = null;
    if (row.enabled) {
      const [next] = await this.kernel.schedules.nextRuns(row.cron, row.time_zone, 1).catch(() => []);
      nextRunAt = next ? next.getTime() : null;
    }
    return {
      id: row.id,
      name: row.name,
      ownerId: row.owner_id,
      source: JSON.parse(row.source) as ReportSource,
      format: row.format as ReportFormat,
      schedule: { cron: row.cron, timeZone: row.time_zone },
      recipients: JSON.parse(row.recipients) as Recipient[],
      subject: row.subject,
      message: row.message,
      enabled: Number(row.enabled) === 1,
      nextRunAt,
      lastRun: row.last_job_id
        ? {
            jobId: row.last_job_id,
            at: Number(row.last_run_at),
            state: row.last_state as 'running' | 'succeeded' | 'failed',
            error: row.last_error ? (JSON.parse(row.last_error) as { code: string; message: string }) : null,
          }
        : null,
      failures: Number(row.failures),
      disabledReason: row.disabled_reason,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  }

  /** PAGE_IN_USE's params for a page a report reads (pages' dependents). */
  async inUse(pageId: string): Promise<Record<string, string[]> | null> {
    const rows = await this.db.selectFrom('scheduled_reports').select('id').where('page_id', '=', pageId).orderBy('id').execute();
    return rows.length ? { reports: rows.map((r) => r.id) } : null;
  }

  /** The table-source reports of a removed connection go with it, in its deleting transaction (`trx`). */
  async removeConnection(connectionId: string, trx: ReportsDb): Promise<number> {
    const ids = (await trx.selectFrom('scheduled_reports').select('id').where('connection_id', '=', connectionId).execute()).map((r) => r.id);
    if (!ids.length) return 0;
    await trx.deleteFrom('scheduled_report_runs').where('report_id', 'in', ids).execute();
    await trx.deleteFrom('scheduled_reports').where('id', 'in', ids).execute();
    return ids.length;
  }

  // ---- writing ----

  /** Every refusal of §4 for a whole report as the caller would store it; answers nothing when it holds. */
  async check(principal: Principal, r: CreateReport): Promise<void> {
    const issues: ErrorIssue[] = [];
    await this.checkSchedule(r.schedule.cron, r.schedule.timeZone, issues);
    await this.checkSource(principal, r.source, r.format, issues);
    const external = await this.externalEmails(r.recipients, issues);
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
    if (external.length && !principal.permissions.has(REPORTS_EXTERNAL))
      throw new AppError('FORBIDDEN', {
        message: 'Mailing outside the instance’s users needs reports.external.',
        params: { permission: REPORTS_EXTERNAL, emails: external },
      });
  }

  async checkSchedule(cron: string, timeZone: string, issues: ErrorIssue[]): Promise<void> {
    const tzOk = validTimeZone(timeZone);
    if (!tzOk) issues.push({ path: 'body.schedule.timeZone', code: 'timezone-invalid', message: `Not an IANA time zone: ${timeZone}.` });
    if (cron.trim().split(/\s+/).length !== 5) {
      issues.push({ path: 'body.schedule.cron', code: 'cron-invalid', message: 'A cron pattern of five fields: minute hour day month weekday.' });
      return;
    }
    let runs: Date[];
    try {
      runs = await this.kernel.schedules.nextRuns(cron, tzOk ? timeZone : 'UTC', 48);
    } catch (err) {
      issues.push({ path: 'body.schedule.cron', code: 'cron-invalid', message: `Not a cron pattern: ${(err as Error).message}` });
      return;
    }
    if (runs.length === 0) issues.push({ path: 'body.schedule.cron', code: 'cron-invalid', message: 'The pattern never runs.' });
    else if (runs.some((d, i) => i > 0 && d.getTime() - runs[i - 1]!.getTime() < MIN_INTERVAL_MS))
      issues.push({ path: 'body.schedule.cron', code: 'too-frequent', message: 'A report runs at most once an hour.' });
  }

  /** unknown-source for anything the caller cannot see (the same answer as a missing one). */
  async checkSource(principal: Principal, source: ReportSource, format: ReportFormat, issues: ErrorIssue[]): Promise<void> {
    const unknown = (path: string, message: string) => issues.push({ path, code: 'unknown-source', message });
    if (source.kind === 'dashboard') {
      if (format !== 'summary') issues.push({ path: 'body.format', code: 'format-source', message: 'A dashboard is mailed as a summary.' });
      const page = await this.kernel.plugin(pagesRef).findVisible(principal, source.pageId);
      if (!page || page.kind !== 'dashboard') unknown('body.source.pageId', 'No dashboard page with this id.');
      return;
    }
    if (!TABLE_FORMATS.has(format)) issues.push({ path: 'body.format', code: 'format-source', message: 'A view or a table is mailed as csv, xlsx or jsonl.' });
    if (source.kind === 'view') {
      const pages = this.kernel.plugin(pagesRef);
      const page = await pages.findVisible(principal, source.pageId);
      if (!page || !page.connectionId || !page.table) {
        unknown('body.source.pageId', 'No table page with this id.');
        return;
      }
      if (source.viewId && !(await pages.views.find(page.id, source.viewId))) {
        unknown('body.source.viewId', 'The page has no shared view with this id.');
        return;
      }
      const target = await viewTarget(pages, page, source.viewId);
      if (!TABLE_FORMATS.has(format)) return;
      try {
        await this.kernel
          .plugin(exportsRef)
          .check(principal, { connectionId: target.connectionId, table: target.table, format: format as 'csv', ...target.query });
      } catch (err) {
        if (!(err instanceof AppError) || !['VALIDATION_FAILED', 'FORBIDDEN', 'NOT_FOUND'].includes(err.code)) throw err;
        // The view (or the page's config) names what the caller may not read: the source is unknown to them.
        unknown(source.viewId ? 'body.source.viewId' : 'body.source.pageId', 'No view of this page that you may export.');
      }
      return;
    }
    const info = await this.kernel
      .plugin(connectionsRef)
      .info(source.connectionId)
      .catch(() => null);
    const table = info ? await this.kernel.plugin(schemaRef).table(source.connectionId, source.table) : null;
    if (!table || principal.permissions.grantOn('data.read', source.connectionId, table.ref) === null) {
      unknown('body.source', 'No table of this connection that you may read.');
      return;
    }
    if (!TABLE_FORMATS.has(format)) return;
    try {
      await this.kernel
        .plugin(exportsRef)
        .check(principal, { connectionId: source.connectionId, table: source.table, format: format as 'csv', ...source.query });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
      for (const i of err.issues ?? []) issues.push({ ...i, path: i.path.replace(/^body\./, 'body.source.query.') });
    }
  }

  /** The e-mail recipients that are no user of the instance. */
  private async externalEmails(recipients: Recipient[], issues: ErrorIssue[]): Promise<string[]> {
    const ids = recipients.flatMap((r) => ('userId' in r ? [r.userId] : []));
    const emails = recipients.flatMap((r) => ('email' in r ? [r.email.toLowerCase()] : []));
    const users = ids.length ? await this.db.selectFrom('users').select('id').where('id', 'in', ids).execute() : [];
    const known = new Set(users.map((u) => u.id));
    recipients.forEach((r, i) => {
      if ('userId' in r && !known.has(r.userId)) issues.push({ path: `body.recipients.${i}.userId`, code: 'unknown-user', message: 'No such user.' });
    });
    if (!emails.length) return [];
    const found = await this.db.selectFrom('users').select('email').where('email', 'in', emails).execute();
    const inside = new Set(found.map((u) => u.email.toLowerCase()));
    return [...new Set(emails.filter((e) => !inside.has(e)))];
  }

  async create(principal: Principal, body: CreateReport): Promise<ReportRow> {
    await this.check(principal, body);
    const now = this.kernel.now();
    const row: ReportRow = {
      id: newId(now),
      name: body.name,
      owner_id: principal.userId!,
      ...this.columns(body),
      failures: 0,
      disabled_reason: null,
      last_job_id: null,
      last_run_at: null,
      last_state: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('scheduled_reports').values(row).execute();
    await this.kernel.schedules.reload();
    return row;
  }

  async patch(principal: Principal, id: string, body: PatchReport): Promise<ReportRow> {
    const row = await this.visible(principal, id);
    const current = await this.toReport(row);
    const next: CreateReport = {
      name: body.name ?? current.name,
      source: body.source ?? current.source,
      format: body.format ?? current.format,
      schedule: body.schedule ?? current.schedule,
      recipients: body.recipients ?? current.recipients,
      subject: body.subject ?? current.subject,
      message: body.message ?? current.message,
      enabled: body.enabled ?? current.enabled,
    };
    await this.check(principal, next);
    const reenabled = next.enabled && !current.enabled;
    const patch = {
      name: next.name,
      ...this.columns(next),
      // Enabled again by a person: the count starts over (RP5).
      ...(reenabled ? { failures: 0, disabled_reason: null } : {}),
      updated_at: this.kernel.now(),
    };
    await this.db.updateTable('scheduled_reports').set(patch).where('id', '=', id).execute();
    await this.kernel.schedules.reload();
    return (await this.row(id))!;
  }

  async remove(principal: Principal, id: string): Promise<ReportRow> {
    const row = await this.visible(principal, id);
    await this.db.deleteFrom('scheduled_report_runs').where('report_id', '=', id).execute();
    await this.db.deleteFrom('scheduled_reports').where('id', '=', id).execute();
    await this.kernel.schedules.reload();
    return row;
  }

  private columns(r: CreateReport) {
    return {
      source: JSON.stringify(r.source),
      page_id: r.source.kind === 'table' ? null : r.source.pageId,
      connection_id: r.source.kind === 'table' ? r.source.connectionId : null,
      format: r.format,
      cron: r.schedule.cron.trim(),
      time_zone: r.schedule.timeZone,
      recipients: JSON.stringify(r.recipients),
      subject: r.subject,
      message: r.message,
      enabled: r.enabled ? 1 : 0,
    };
  }
}

/** This plugin's own whole service (its routes and job); other plugins get nothing from it. */
export const reportsServiceRef = defineServiceRef<ReportsService>('scheduled-reports');
