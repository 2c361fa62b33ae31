import { AppError, type JobContext, JobError, MAIL_ATTACHMENTS_MAX_BYTES, type MailAttachment } from '../../kernel/api.js';
import { exportsRef, type ExportFormat, type ExportQuery } from '../exports/provides.js';
import { pagesRef } from '../pages/provides.js';
import type { Recipient, ReportSource } from './schemas.js';
import {
  FAILURES_TO_DISABLE,
  principalOf,
  REPORT_FAILED_NOTIFICATION,
  REPORTS_ADMIN,
  REPORTS_EXTERNAL,
  REPORTS_WRITE,
  type ReportRow,
  type ReportsService,
} from './service.js';
import { summarizeDashboard } from './summary.js';
import { viewTarget } from './view-source.js';

export interface RunPayload {
  reportId: string;
  /** Set by the schedule: the due time this run is for. Absent: "run now" (POST /jobs). */
  dueAt?: number;
}

export interface RunResult {
  recipients: number;
  exportId: string | null;
  bytes: number | null;
  attached: boolean;
  /** A retry found this run's mail already sent (RP4). */
  alreadySent?: boolean;
}

/** A run's progress message while it starts: `Scheduled report <id>`, for whoever watches the jobs list. */
export const reportRunMessage = (reportId: string) => `Scheduled report ${reportId}`;

const forbidden = (message: string) => new JobError('REPORT_FORBIDDEN', message, false);

/** Whether the runner will try again after this error (the kernel's rule, kernel/jobs/errors.ts). */
function retryable(err: unknown): boolean {
  if (err instanceof JobError) return err.retryable;
  if (err instanceof AppError) return err.status >= 500;
  return true;
}

/**
 * The job `scheduled-reports.run` (RP4): the export or the summary with the owner's permissions
 * as they are now, mailed to each recipient. One run per due time (the kernel's claim) and one
 * mail per run whatever the attempts (`scheduled_report_runs`). A run's last failing attempt
 * counts a failure, tells the owner, and the third in a row disables the report (RP5).
 */
export async function runReport(ctx: JobContext<RunPayload>, service: ReportsService): Promise<RunResult> {
  const { kernel } = ctx;
  const row = await service.row(ctx.payload.reportId);
  if (!row) throw new JobError('REPORT_NOT_FOUND', 'The report no longer exists.', false);
  // The schedule queues runs as the owner's; by hand (POST /jobs, with or without a dueAt) only
  // the owner, or a holder of reports.admin, runs a report.
  if (ctx.job.createdBy !== row.owner_id) {
    const creator = ctx.job.createdBy ? await principalOf(kernel, ctx.job.createdBy) : null;
    if (!creator?.permissions.has(REPORTS_ADMIN)) throw new JobError('REPORT_NOT_FOUND', 'No scheduled report with this id.', false);
  }
  await ctx.progress(0, null, reportRunMessage(row.id));
  const runKey = ctx.payload.dueAt !== undefined ? `due:${ctx.payload.dueAt}` : `job:${ctx.job.id}`;
  const now = kernel.now();
  const done = await service.db
    .selectFrom('scheduled_report_runs')
    .select(['state', 'mailed_to'])
    .where('report_id', '=', row.id)
    .where('run_key', '=', runKey)
    .executeTakeFirst();
  if (done?.state === 'mailed') return { recipients: 0, exportId: null, bytes: null, attached: false, alreadySent: true };
  if (!done)
    await service.db
      .insertInto('scheduled_report_runs')
      .values({ report_id: row.id, run_key: runKey, job_id: ctx.job.id, state: 'running', created_at: now, finished_at: null, mailed_to: null })
      .execute()
      .catch(() => undefined);
  await service.db
    .updateTable('scheduled_reports')
    .set({ last_job_id: ctx.job.id, last_run_at: now, last_state: 'running', last_error: null })
    .where('id', '=', row.id)
    .execute();
  try {
    const mailed = new Set<string>(done?.mailed_to ? (JSON.parse(done.mailed_to) as string[]) : []);
    const result = await deliver(ctx, service, row, {
      mailed,
      markMailed: async (to) => {
        mailed.add(to);
        await service.db
          .updateTable('scheduled_report_runs')
          .set({ mailed_to: JSON.stringify([...mailed]) })
          .where('report_id', '=', row.id)
          .where('run_key', '=', runKey)
          .execute();
      },
    });
    const end = kernel.now();
    await service.db
      .updateTable('scheduled_report_runs')
      .set({ state: 'mailed', finished_at: end })
      .where('report_id', '=', row.id)
      .where('run_key', '=', runKey)
      .execute();
    await service.db.updateTable('scheduled_reports').set({ last_state: 'succeeded', failures: 0 }).where('id', '=', row.id).execute();
    return result;
  } catch (err) {
    if (!retryable(err) || ctx.job.attempts >= ctx.job.maxAttempts) await recordFailure(ctx, service, row, err);
    throw err;
  }
}

async function recordFailure(ctx: JobContext<RunPayload>, service: ReportsService, row: ReportRow, err: unknown): Promise<void> {
  const { kernel } = ctx;
  const error =
    err instanceof JobError || err instanceof AppError
      ? { code: err.code, message: err.message.slice(0, 1000) }
      : { code: 'JOB_FAILED', message: 'The report could not be made or sent.' };
  const fresh = await service.row(row.id);
  if (!fresh) return;
  const failures = Number(fresh.failures) + 1;
  const disable = failures >= FAILURES_TO_DISABLE && Number(fresh.enabled) === 1;
  const reason = disable ? `Disabled after ${failures} failed runs in a row. The last failed with ${error.code}: ${error.message}` : null;
  await service.db
    .updateTable('scheduled_reports')
    .set({
      failures,
      last_state: 'failed',
      last_error: JSON.stringify(error),
      ...(disable ? { enabled: 0, disabled_reason: reason } : {}),
      updated_at: kernel.now(),
    })
    .where('id', '=', row.id)
    .execute();
  await service.db
    .updateTable('scheduled_report_runs')
    .set({ state: 'failed', finished_at: kernel.now() })
    .where('report_id', '=', row.id)
    .where('job_id', '=', ctx.job.id)
    .execute();
  await kernel.notifications
    .notify(row.owner_id, {
      kind: REPORT_FAILED_NOTIFICATION,
      title: disable ? `Scheduled report “${row.name}” was disabled` : `Scheduled report “${row.name}” failed`,
      body: reason ?? `${error.code}: ${error.message}`,
      link: `/scheduled-reports/${row.id}`,
    })
    .catch((e: Error) => ctx.log.warn({ err: { message: e.message } }, 'could not notify a report owner'));
  if (disable) await kernel.schedules.reload();
}

/** The run's addresses already mailed by an earlier attempt, and how to record one more (RP4). */
interface Mailed {
  mailed: ReadonlySet<string>;
  markMailed: (to: string) => Promise<void>;
}

async function deliver(ctx: JobContext<RunPayload>, service: ReportsService, row: ReportRow, run: Mailed): Promise<RunResult> {
  const { kernel } = ctx;
  const owner = await principalOf(kernel, row.owner_id);
  if (!owner) throw forbidden('The report’s owner is suspended or no longer a user.');
  if (!owner.permissions.has(REPORTS_WRITE)) throw forbidden('The report’s owner no longer holds reports.write.');
  const source = JSON.parse(row.source) as ReportSource;
  const pages = kernel.plugin(pagesRef);
  const subject = row.subject || row.name;
  let text = row.message ? `${row.message}\n\n` : '';
  let html: string | undefined;
  const attachments: MailAttachment[] = [];
  let exportId: string | null = null;
  let bytes: number | null = null;
  let attached = false;

  if (source.kind === 'dashboard') {
    const page = await pages.find(source.pageId);
    if (!page) throw new JobError('REPORT_SOURCE_GONE', 'The dashboard page no longer exists.', false);
    if (!pages.canSee(owner, page)) throw forbidden('The report’s owner may no longer see the dashboard.');
    const summary = await summarizeDashboard(kernel, owner, page);
    text += summary.text;
    html = `${row.message ? `<p>${row.message.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>` : ''}${summary.html}`;
    attachments.push(...summary.attachments);
  } else {
    let target: { connectionId: string; table: string; query: ExportQuery };
    if (source.kind === 'view') {
      const page = await pages.find(source.pageId);
      if (!page || !page.connectionId || !page.table) throw new JobError('REPORT_SOURCE_GONE', 'The page no longer exists.', false);
      if (!pages.canSee(owner, page)) throw forbidden('The report’s owner may no longer see the page.');
      // RP3: the shared view's query (else the default view's, else the page's config); RP8: a gone view falls back, said in the mail.
      const view = await viewTarget(pages, page, source.viewId);
      target = view;
      const what = view.from === 'config' ? 'the page’s own columns, sort and filters' : `the view “${view.view!.name}”`;
      if (view.viewGone) text += `The report’s view no longer exists; this export follows ${what} instead.\n\n`;
    } else target = { connectionId: source.connectionId, table: source.table, query: source.query ?? {} };
    let file;
    try {
      file = await kernel
        .plugin(exportsRef)
        .exportToFile(
          owner,
          { ...target.query, connectionId: target.connectionId, table: target.table, format: row.format as ExportFormat },
          { signal: ctx.signal },
        );
    } catch (err) {
      if (err instanceof AppError && err.code === 'FORBIDDEN') throw forbidden('The report’s owner may no longer read the table.');
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new JobError('REPORT_SOURCE_GONE', 'The connection or the table no longer exists.', false);
      if (err instanceof AppError && err.code === 'VALIDATION_FAILED')
        throw new JobError('REPORT_SOURCE_CHANGED', `The table changed: ${(err.issues ?? []).map((i) => i.message).join(' ')}`, false);
      throw err;
    }
    exportId = file.exportId;
    bytes = file.size;
    if (file.size <= MAIL_ATTACHMENTS_MAX_BYTES) {
      const stream = await file.open();
      if (!stream) throw new JobError('REPORT_FILE_GONE', 'The export file went before it was mailed.');
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      attachments.push({ filename: file.fileName, contentType: file.contentType, content: Buffer.concat(chunks) });
      attached = true;
      text += `${file.rowCount} rows attached (${file.fileName}).`;
    } else {
      // RP4: above the mail's bound the mail says so and links the export.
      const link = `${kernel.config.baseUrl ?? ''}/api/v1/exports/${file.exportId}/download`;
      text +=
        `The export (${file.rowCount} rows, ${(file.size / 1024 / 1024).toFixed(1)} MiB) is larger than a mail may carry (10 MiB). ` +
        `Signed in, download it here until ${new Date(file.expiresAt).toISOString()}: ${link}`;
    }
  }

  const addresses = await recipientAddresses(service, row, owner.permissions.has(REPORTS_EXTERNAL));
  for (const to of addresses) {
    // An earlier attempt of this run reached this address: a retry does not mail it twice.
    if (run.mailed.has(to)) continue;
    const sent = await kernel.mailer.send({ to, subject, text, ...(html ? { html } : {}), ...(attachments.length ? { attachments } : {}) });
    if (!sent.sent && sent.reason === 'not-configured')
      throw new JobError('REPORT_MAIL_NOT_CONFIGURED', 'No SMTP server is set up (PUT /settings/email).', false);
    if (!sent.sent) throw new JobError('REPORT_MAIL_FAILED', `The mail to ${to} could not be sent.`);
    await run.markMailed(to);
  }
  return { recipients: addresses.length, exportId, bytes, attached };
}

/** Each recipient's address now: active users' e-mails; outside addresses only while the owner holds reports.external. */
async function recipientAddresses(service: ReportsService, row: ReportRow, external: boolean): Promise<string[]> {
  const recipients = JSON.parse(row.recipients) as Recipient[];
  const ids = recipients.flatMap((r) => ('userId' in r ? [r.userId] : []));
  const emails = recipients.flatMap((r) => ('email' in r ? [r.email.toLowerCase()] : []));
  const users =
    ids.length || emails.length
      ? await service.db
          .selectFrom('users')
          .select(['id', 'email', 'status'])
          .where((w) => w.or([...(ids.length ? [w('id', 'in', ids)] : []), ...(emails.length ? [w(w.fn('lower', ['email']), 'in', emails)] : [])]))
          .execute()
      : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  const byEmail = new Map(users.map((u) => [u.email.toLowerCase(), u]));
  const out = new Set<string>();
  for (const id of ids) {
    const u = byId.get(id);
    if (u?.status === 'active') out.add(u.email);
  }
  for (const e of emails) {
    const u = byEmail.get(e);
    if (u) {
      if (u.status === 'active') out.add(u.email);
    } else if (!external) throw forbidden(`The report’s owner may no longer mail outside the instance (${e}).`);
    else out.add(e);
  }
  return [...out];
}
