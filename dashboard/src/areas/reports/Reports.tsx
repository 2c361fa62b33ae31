import { useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { ErrorPanel, Field, FieldFrame, FormError, Loading, SelectField, useTitle } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { usePermissions } from '../account/api';
import { useConnectionList } from '../connections/api';
import { usePagesNav, type NavPage } from '../pages/api';
import { isFinal, useJobList, type Job } from '../transfer/api';
import { exportToGridQuery, gridQueryToExport } from '../transfer/gridQuery';
import {
  RUN_KIND,
  useConnectionSchema,
  useCreateReport,
  useDeleteReport,
  usePageViews,
  useReports,
  useRunNow,
  useToggleReport,
  useUpdateReport,
  useUsers,
  type Recipient,
  type Report,
  type ReportBody,
  type ReportSource,
} from './api';
import { BROWSER_ZONE, describe, inZone, preview, timeZones, when } from './schedule';
import './reports.css';
import { AddIcon, DeleteIcon, ReportsIcon, RunIcon, SaveIcon, ScheduleIcon, SettingsIcon, WarningIcon } from '../../ui/icons';
import { Section } from '../../ui/Section';
import { Badge, type BadgeTone } from '../../ui/Badge';
import { BackLink } from '../../ui/BackLink';
import { DataTable } from '../../ui/DataTable';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';

type SourceKind = ReportSource['kind'];
type Format = Report['format'];
const TABLE_FORMATS: readonly Format[] = ['csv', 'xlsx', 'jsonl'];
const STATE_LABEL = { running: 'reports.state.running', succeeded: 'reports.state.succeeded', failed: 'reports.state.failed' } as const;
const STATE_TONE: Record<Job['state'], BadgeTone> = { queued: 'neutral', running: 'accent', succeeded: 'success', failed: 'danger', cancelled: 'warning' };
const JOB_STATE_LABEL: Record<Job['state'], MessageId> = {
  queued: 'reports.state.queued',
  running: 'reports.state.running',
  succeeded: 'reports.state.succeeded',
  failed: 'reports.state.failed',
  cancelled: 'reports.state.cancelled',
};

const paths = { list: '/reports', create: '/reports/new', edit: (id: string) => `/reports/${encodeURIComponent(id)}` };

/** The server's message for a field (an issue whose path is `path` or under it). */
function issueAt(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.issues.find((i) => i.path === path || i.path.startsWith(`${path}.`))?.message;
}

/** 403 for an outside address: said at the recipients, in words. */
const externalRefused = (error: unknown) =>
  error instanceof ApiError && error.status === 403 && (error.params as { permission?: unknown }).permission === 'reports.external';

/** "Table people", "View of Products", "Dashboard Sales". */
function sourceText(source: ReportSource, pages: readonly NavPage[] | undefined): string {
  if (source.kind === 'table') return t('reports.source.tableOf', { table: source.table });
  const title = pages?.find((p) => p.id === source.pageId)?.title ?? source.pageId;
  return t(source.kind === 'view' ? 'reports.source.viewOf' : 'reports.source.dashboardOf', { title });
}

/** `/reports`: the caller's reports (all of them with reports.admin; the API decides). */
export function ReportList() {
  useTitle('reports.title');
  const perms = usePermissions();
  const canWrite = perms?.has('reports.write') ?? false;
  const reports = useReports();
  const pages = usePagesNav();
  const toggle = useToggleReport();
  // The switch moves in the same event as the click (a controlled checkbox would snap back until the cache changes).
  const [switched, setSwitched] = useState<Readonly<Record<string, boolean>>>({});
  const flip = (id: string, enabled: boolean) => {
    setSwitched((m) => ({ ...m, [id]: enabled }));
    toggle.mutate(
      { id, enabled },
      {
        onSettled: () =>
          setSwitched((m) => {
            const { [id]: _gone, ...rest } = m;
            return rest;
          }),
      },
    );
  };
  return (
    <>
      <PageHeader
        title={t('reports.title')}
        description={t('reports.intro')}
        actions={
          canWrite &&
          (reports.data?.length ?? 0) > 0 && (
            <Link href={paths.create} className="button">
              <AddIcon className="icon" aria-hidden="true" />
              {t('reports.new')}
            </Link>
          )
        }
      />
      <FormError error={toggle.error} />
      {reports.isPending ? (
        <Loading />
      ) : reports.isError ? (
        <ErrorPanel error={reports.error} onRetry={() => void reports.refetch()} />
      ) : reports.data.length === 0 ? (
        <EmptyState
          icon={ReportsIcon}
          action={
            canWrite ? (
              <Link href={paths.create} className="button">
                <AddIcon className="icon" aria-hidden="true" />
                {t('reports.new')}
              </Link>
            ) : (
              <p>{t('reports.empty.readOnly')}</p>
            )
          }
        >
          <h2>{t('reports.empty.title')}</h2>
          <p>{t('reports.empty.body')}</p>
        </EmptyState>
      ) : (
        <DataTable
          className="reports-table"
          stacked
          caption={t('reports.title')}
          captionHidden
          rows={reports.data}
          rowKey={(r) => r.id}
          rowAttributes={() => ({ 'data-testid': 'report-row' })}
          columns={[
            { id: 'name', header: t('reports.col.name'), rowHeader: true, cell: (r) => <Link href={paths.edit(r.id)}>{r.name}</Link> },
            { id: 'source', header: t('reports.col.source'), cell: (r) => sourceText(r.source, pages.data) },
            {
              id: 'format',
              header: t('reports.col.format'),
              cell: (r) => <Badge dot={false}>{t('reports.format', { format: r.format })}</Badge>,
            },
            {
              id: 'schedule',
              header: t('reports.col.schedule'),
              cell: (r) => (
                <>
                  {describe(r.schedule.cron)}
                  <span className="reports-sub">{t('reports.inZone', { zone: r.schedule.timeZone })}</span>
                </>
              ),
            },
            { id: 'next', header: t('reports.col.next'), cell: (r) => (r.nextRunAt === null ? t('reports.next.none') : when(r.nextRunAt)) },
            {
              id: 'last',
              header: t('reports.col.last'),
              cell: (r) => (
                <>
                  {r.lastRun ? (
                    <>
                      <Badge tone={STATE_TONE[r.lastRun.state]}>{t(STATE_LABEL[r.lastRun.state])}</Badge>
                      <span className="reports-sub">{when(r.lastRun.at)}</span>
                      {r.lastRun.error && (
                        <span className="reports-error">{t('reports.errorLine', { code: r.lastRun.error.code, message: r.lastRun.error.message })}</span>
                      )}
                    </>
                  ) : (
                    t('reports.last.never')
                  )}
                  {r.disabledReason && <span className="reports-error">{r.disabledReason}</span>}
                </>
              ),
            },
            {
              id: 'enabled',
              header: t('reports.col.enabled'),
              cell: (r) => (
                <label className="reports-toggle">
                  <input
                    type="checkbox"
                    checked={switched[r.id] ?? r.enabled}
                    disabled={!canWrite}
                    onChange={(e) => flip(r.id, e.currentTarget.checked)}
                    aria-label={t('reports.enabledOne', { name: r.name })}
                  />
                  <span aria-hidden="true">{t((switched[r.id] ?? r.enabled) ? 'reports.on' : 'reports.off')}</span>
                </label>
              ),
            },
          ]}
        />
      )}
    </>
  );
}

/** The cron field's live preview: in words, and the next five runs in the chosen zone. */
function CronPreview({ cron, zone, id }: { cron: string; zone: string; id: string }) {
  const p = useMemo(() => preview(cron, zone), [cron, zone]);
  if (!p.ok) return null;
  return (
    <div className="reports-preview" id={id} aria-live="polite">
      <p>
        <strong>{p.words}</strong> {t('reports.inZone', { zone })}
      </p>
      <p className="reports-sub">{t('reports.cron.nextRuns')}</p>
      <ol data-testid="next-runs">
        {p.next.map((d) => (
          <li key={d.getTime()}>{inZone(d, zone)}</li>
        ))}
      </ol>
    </div>
  );
}

/** Splits typed addresses at commas, semicolons, spaces and new lines. */
const emailsOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((e) => e.trim())
    .filter(Boolean);

interface Draft {
  name: string;
  kind: SourceKind;
  pageId: string;
  viewId: string;
  connectionId: string;
  table: string;
  query: string;
  format: Format;
  cron: string;
  timeZone: string;
  userIds: string[];
  emails: string;
  subject: string;
  message: string;
  enabled: boolean;
}

function draftOf(r: Report | null, search: URLSearchParams): Draft {
  if (!r) {
    const table = search.get('table') ?? '';
    return {
      name: '',
      kind: table ? 'table' : 'view',
      pageId: '',
      viewId: '',
      connectionId: search.get('connection') ?? '',
      table,
      query: search.get('query') ?? '',
      format: 'csv',
      cron: '0 7 * * 1-5',
      timeZone: BROWSER_ZONE,
      userIds: [],
      emails: '',
      subject: '',
      message: '',
      enabled: true,
    };
  }
  const s = r.source;
  return {
    name: r.name,
    kind: s.kind,
    pageId: s.kind === 'table' ? '' : s.pageId,
    viewId: s.kind === 'view' ? (s.viewId ?? '') : '',
    connectionId: s.kind === 'table' ? s.connectionId : '',
    table: s.kind === 'table' ? s.table : '',
    query: s.kind === 'table' ? exportToGridQuery(s.query) : '',
    format: r.format,
    cron: r.schedule.cron,
    timeZone: r.schedule.timeZone,
    userIds: r.recipients.flatMap((x) => ('userId' in x ? [x.userId] : [])),
    emails: r.recipients.flatMap((x) => ('email' in x ? [x.email] : [])).join(', '),
    subject: r.subject,
    message: r.message,
    enabled: r.enabled,
  };
}

/** The views picker of a chosen page. */
function ViewPicker({ pageId, value, onChange, error }: { pageId: string; value: string; onChange: (v: string) => void; error?: string }) {
  const views = usePageViews(pageId);
  return (
    <SelectField
      label="reports.field.view"
      name="viewId"
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      hint="reports.field.viewHint"
      options={[{ value: '', label: t('reports.field.defaultView') }, ...(views.data ?? []).map((v) => ({ value: v.id, label: v.name }))]}
    />
  );
}

/** The tables of a chosen connection. */
function TablePicker({ conn, value, onChange, error }: { conn: string; value: string; onChange: (v: string) => void; error?: string }) {
  const schema = useConnectionSchema(conn);
  const tables = schema.data?.model.tables.filter((x) => !x.display.hidden) ?? [];
  return (
    <SelectField
      label="reports.field.table"
      name="table"
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      options={[{ value: '', label: t('reports.field.choose') }, ...tables.map((x) => ({ value: x.ref, label: x.display.label || x.name }))]}
    />
  );
}

/** The create and edit form: one draft, sent whole (POST) or as a PATCH of every field. */
function ReportForm({ report }: { report: Report | null }) {
  const id = useId();
  const [, navigate] = useLocation();
  const search = new URLSearchParams(useSearch());
  const [d, setD] = useState<Draft>(() => draftOf(report, search));
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const [saved, setSaved] = useState(false);
  // The draft last sent: the server's word on the schedule holds until the person changes it.
  const [sent, setSent] = useState<Draft | null>(null);
  const perms = usePermissions();
  const external = perms?.has('reports.external') ?? false;
  const pages = usePagesNav();
  const connections = useConnectionList();
  const conns = connections.data?.pages.flatMap((p) => p.connections) ?? [];
  const schema = useConnectionSchema(d.connectionId);
  const users = useUsers();
  const create = useCreateReport();
  const update = useUpdateReport(report?.id ?? '');
  const mutation = report ? update : create;
  const error = mutation.error;
  const zones = useMemo(() => timeZones(d.timeZone), [d.timeZone]);
  const cronCheck = preview(d.cron, d.timeZone);
  const ownCronError =
    !cronCheck.ok && cronCheck.reason === 'fields'
      ? t('reports.cron.fields', { count: cronCheck.fields ?? 0 })
      : !cronCheck.ok && cronCheck.reason === 'invalid'
        ? t('reports.cron.invalid')
        : undefined;
  const pageChoices = (pages.data ?? []).filter((p) => (d.kind === 'dashboard' ? p.kind === 'dashboard' : p.kind !== 'dashboard' && p.kind !== 'custom'));
  const formats: readonly Format[] = d.kind === 'dashboard' ? ['summary'] : TABLE_FORMATS;
  const userList = users.data;
  const typedLabel: MessageId = external ? 'reports.field.emails' : 'reports.field.userEmails';
  const showTyped = external || userList === null;

  const body = (): ReportBody => {
    const table = schema.data?.model.tables.find((x) => x.ref === d.table);
    const grid = gridQueryToExport(d.query, table?.columns ?? []);
    const source: ReportSource =
      d.kind === 'table'
        ? {
            kind: 'table',
            connectionId: d.connectionId,
            table: d.table,
            query: {
              ...(grid.fields?.length ? { columns: grid.fields } : {}),
              ...(grid.filter ? { filter: grid.filter } : {}),
              ...(grid.search ? { search: grid.search } : {}),
              ...(grid.sort ? { sort: grid.sort } : {}),
            },
          }
        : d.kind === 'view'
          ? { kind: 'view', pageId: d.pageId, ...(d.viewId ? { viewId: d.viewId } : {}) }
          : { kind: 'dashboard', pageId: d.pageId };
    const recipients: Recipient[] = [...d.userIds.map((userId) => ({ userId })), ...(showTyped ? emailsOf(d.emails).map((email) => ({ email })) : [])];
    return {
      name: d.name,
      source,
      format: d.format,
      schedule: { cron: d.cron.trim(), timeZone: d.timeZone },
      recipients,
      subject: d.subject,
      message: d.message,
      enabled: d.enabled,
    };
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSaved(false);
    setSent(d);
    if (report) update.mutate(body(), { onSuccess: () => setSaved(true) });
    else create.mutate(body(), { onSuccess: (r) => navigate(paths.edit(r.id)) });
  };
  const recipientsError = externalRefused(error) ? t('reports.error.external') : issueAt(error, 'body.recipients');
  const gridDropped =
    d.kind === 'table' && d.query ? gridQueryToExport(d.query, schema.data?.model.tables.find((x) => x.ref === d.table)?.columns ?? []) : null;

  return (
    <form onSubmit={submit} className="reports-form" noValidate>
      <Field
        label="reports.field.name"
        name="name"
        required
        maxLength={120}
        value={d.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        error={issueAt(error, 'body.name')}
      />

      <fieldset className="reports-group">
        <legend>{t('reports.field.source')}</legend>
        <div className="reports-radios" role="radiogroup" aria-label={t('reports.field.sourceKind')}>
          {(['view', 'table', 'dashboard'] as const).map((k) => (
            <label key={k}>
              <input
                type="radio"
                name="kind"
                value={k}
                checked={d.kind === k}
                onChange={() => set({ kind: k, pageId: '', viewId: '', format: k === 'dashboard' ? 'summary' : d.format === 'summary' ? 'csv' : d.format })}
              />{' '}
              {t('reports.kind', { kind: k })}
            </label>
          ))}
        </div>
        {d.kind !== 'table' ? (
          <>
            <SelectField
              label={d.kind === 'dashboard' ? 'reports.field.dashboard' : 'reports.field.page'}
              name="pageId"
              value={d.pageId}
              onChange={(e) => set({ pageId: e.currentTarget.value, viewId: '' })}
              error={issueAt(error, 'body.source.pageId') ?? issueAt(error, 'body.source')}
              options={[{ value: '', label: t('reports.field.choose') }, ...pageChoices.map((p) => ({ value: p.id, label: p.title }))]}
            />
            {d.kind === 'view' && d.pageId && (
              <ViewPicker pageId={d.pageId} value={d.viewId} onChange={(v) => set({ viewId: v })} error={issueAt(error, 'body.source.viewId')} />
            )}
          </>
        ) : (
          <>
            <SelectField
              label="reports.field.connection"
              name="connectionId"
              value={d.connectionId}
              onChange={(e) => set({ connectionId: e.currentTarget.value, table: '' })}
              error={issueAt(error, 'body.source.connectionId')}
              options={[{ value: '', label: t('reports.field.choose') }, ...conns.map((c) => ({ value: c.id, label: c.name }))]}
            />
            <TablePicker
              conn={d.connectionId}
              value={d.table}
              onChange={(v) => set({ table: v })}
              error={issueAt(error, 'body.source.table') ?? (issueAt(error, 'body.source.query') ? undefined : issueAt(error, 'body.source'))}
            />
            <Field
              label="reports.field.query"
              name="query"
              hint="reports.field.queryHint"
              value={d.query}
              onChange={(e) => set({ query: e.currentTarget.value })}
              error={
                issueAt(error, 'body.source.query') ??
                (gridDropped && gridDropped.dropped.length ? t('reports.field.queryDropped', { params: gridDropped.dropped.join(', ') }) : undefined)
              }
            />
          </>
        )}
      </fieldset>

      <SelectField
        label="reports.field.format"
        name="format"
        value={d.format}
        onChange={(e) => set({ format: e.currentTarget.value as Format })}
        error={issueAt(error, 'body.format')}
        options={formats.map((f) => ({ value: f, label: t('reports.format', { format: f }) }))}
      />

      <fieldset className="reports-group">
        <legend>{t('reports.field.schedule')}</legend>
        <Field
          label="reports.field.cron"
          name="cron"
          hint="reports.field.cronHint"
          className="reports-mono"
          value={d.cron}
          onChange={(e) => set({ cron: e.currentTarget.value })}
          error={ownCronError ?? (sent?.cron === d.cron ? issueAt(error, 'body.schedule.cron') : undefined)}
          aria-controls={`${id}-preview`}
          spellCheck={false}
          autoComplete="off"
        />
        <SelectField
          label="reports.field.timeZone"
          name="timeZone"
          value={d.timeZone}
          onChange={(e) => set({ timeZone: e.currentTarget.value })}
          error={sent?.timeZone === d.timeZone ? issueAt(error, 'body.schedule.timeZone') : undefined}
          options={zones.map((z) => ({ value: z, label: z }))}
        />
        <CronPreview cron={d.cron} zone={d.timeZone} id={`${id}-preview`} />
      </fieldset>

      <fieldset className="reports-group">
        <legend>{t('reports.field.recipients')}</legend>
        {userList === undefined ? (
          <Loading />
        ) : userList !== null ? (
          <div className="reports-users" role="group" aria-label={t('reports.field.users')}>
            {userList.map((u) => (
              <label key={u.id}>
                <input
                  type="checkbox"
                  checked={d.userIds.includes(u.id)}
                  onChange={(e) => set({ userIds: e.currentTarget.checked ? [...d.userIds, u.id] : d.userIds.filter((x) => x !== u.id) })}
                />{' '}
                {u.name} <span className="reports-sub">{u.email}</span>
              </label>
            ))}
          </div>
        ) : null}
        {showTyped && (
          <FieldFrame label={typedLabel} hint={external ? 'reports.field.emailsHint' : 'reports.field.userEmailsHint'}>
            {(fid, describedBy) => (
              <textarea
                id={fid}
                name="emails"
                rows={2}
                value={d.emails}
                onChange={(e) => set({ emails: e.currentTarget.value })}
                aria-describedby={describedBy}
              />
            )}
          </FieldFrame>
        )}
        {!external && <p className="hint">{t('reports.field.noExternal')}</p>}
        {recipientsError && (
          <p className="field-error" role="alert">
            {recipientsError}
          </p>
        )}
      </fieldset>

      <Field
        label="reports.field.subject"
        name="subject"
        maxLength={200}
        value={d.subject}
        onChange={(e) => set({ subject: e.currentTarget.value })}
        error={issueAt(error, 'body.subject')}
      />
      <FieldFrame label="reports.field.message">
        {(fid, describedBy) => (
          <textarea
            id={fid}
            name="message"
            rows={4}
            maxLength={2000}
            value={d.message}
            onChange={(e) => set({ message: e.currentTarget.value })}
            aria-describedby={describedBy}
          />
        )}
      </FieldFrame>
      <label className="reports-check">
        <input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> {t('reports.field.enabled')}
      </label>
      {report?.disabledReason && <p className="reports-error">{report.disabledReason}</p>}

      {sent === d && !externalRefused(error) && <FormError error={error} />}
      {saved && (
        <p className="notice" role="status">
          {t('reports.saved')}
        </p>
      )}
      <p className="actions">
        <button type="submit" disabled={mutation.isPending}>
          {report ? <SaveIcon className="icon" aria-hidden="true" /> : <AddIcon className="icon" aria-hidden="true" />}
          {t(report ? 'reports.save' : 'reports.create')}
        </button>{' '}
        <Link href={paths.list}>{t('reports.cancel')}</Link>
      </p>
    </form>
  );
}

/** `/reports/new`. */
export function NewReport() {
  useTitle('reports.new.title');
  return (
    <>
      <BackLink href={paths.list}>{t('reports.back')}</BackLink>
      <PageHeader title={t('reports.new.title')} />
      <ReportForm report={null} />
    </>
  );
}

/** A report's runs: its jobs in GET /jobs, which name the report as their subject (J3), newest first. */
function History({ report }: { report: Report }) {
  const list = useJobList(100, '', RUN_KIND, report.id);
  const jobs = list.data?.pages.flatMap((p) => p.jobs) ?? [];
  const hid = useId();
  return (
    <Section id={hid} icon={ScheduleIcon} title={t('reports.history.title')} className="reports-history">
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : (
        <DataTable
          className="reports-runs"
          stacked
          caption={t('reports.history.title')}
          captionHidden
          rows={jobs}
          rowKey={(j) => j.id}
          rowAttributes={(j) => ({ 'data-testid': 'run-row', 'data-state': j.state })}
          empty={<EmptyState icon={ScheduleIcon}>{t('reports.history.empty')}</EmptyState>}
          columns={[
            {
              id: 'when',
              header: t('reports.history.when'),
              rowHeader: true,
              cell: (j) => <Link href={`/jobs/${encodeURIComponent(j.id)}`}>{when(j.createdAt)}</Link>,
            },
            { id: 'state', header: t('reports.history.state'), cell: (j) => <Badge tone={STATE_TONE[j.state]}>{t(JOB_STATE_LABEL[j.state])}</Badge> },
            { id: 'finished', header: t('reports.history.finished'), cell: (j) => (j.finishedAt === null ? '' : when(j.finishedAt)) },
            {
              id: 'detail',
              header: t('reports.history.detail'),
              cell: (j) =>
                j.error && (isFinal(j.state) || j.state === 'queued') ? (
                  <span className="reports-error">{t('reports.errorLine', { code: j.error.code, message: j.error.message })}</span>
                ) : j.state === 'succeeded' && j.result && typeof j.result === 'object' && 'recipients' in j.result ? (
                  t('reports.history.sent', { count: Number((j.result as { recipients: unknown }).recipients) })
                ) : (
                  ''
                ),
            },
          ]}
        />
      )}
    </Section>
  );
}

/** `/reports/:id`: the form, Run now, the history, Delete. */
export function EditReport() {
  useTitle('reports.edit.title');
  const { id } = useParams<{ id: string }>();
  const reports = useReports();
  if (reports.isPending) return <Loading />;
  if (reports.isError) return <ErrorPanel error={reports.error} onRetry={() => void reports.refetch()} />;
  const report = reports.data.find((r) => r.id === id);
  if (!report)
    return (
      <>
        <BackLink href={paths.list}>{t('reports.back')}</BackLink>
        <PageHeader title={t('reports.edit.title')} />
        <EmptyState icon={ReportsIcon}>{t('reports.edit.missing')}</EmptyState>
      </>
    );
  return <EditScreen key={report.id} report={report} />;
}

function EditScreen({ report }: { report: Report }) {
  const [, navigate] = useLocation();
  const perms = usePermissions();
  const canWrite = perms?.has('reports.write') ?? false;
  const run = useRunNow(report.id);
  const remove = useDeleteReport(report.id);
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <BackLink href={paths.list}>{t('reports.back')}</BackLink>
      <PageHeader
        title={t('reports.edit.heading', { name: report.name })}
        actions={
          canWrite && (
            <button type="button" disabled={run.isPending} onClick={() => run.mutate()}>
              <RunIcon className="icon" aria-hidden="true" />
              {t('reports.runNow')}
            </button>
          )
        }
      />
      <dl className="reports-facts details-list card">
        <dt>{t('reports.col.next')}</dt>
        <dd>{report.nextRunAt === null ? t('reports.next.none') : when(report.nextRunAt)}</dd>
        <dt>{t('reports.col.last')}</dt>
        <dd>{report.lastRun ? `${t(STATE_LABEL[report.lastRun.state])} · ${when(report.lastRun.at)}` : t('reports.last.never')}</dd>
      </dl>
      <FormError error={run.error} />
      {run.isSuccess && (
        <p className="notice" role="status">
          {t('reports.runQueued')}
        </p>
      )}
      <History report={report} />
      <Section icon={SettingsIcon} title={t('reports.edit.settings')}>
        <ReportForm key={report.updatedAt} report={report} />
      </Section>
      {canWrite && (
        <Section
          icon={WarningIcon}
          title={t('reports.delete.title')}
          description={t('reports.delete.body')}
          className="reports-danger danger-zone"
          actions={
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              <DeleteIcon className="icon" aria-hidden="true" />
              {t('reports.delete')}
            </button>
          }
        >
          <FormError error={remove.error} />
        </Section>
      )}
      {confirming && (
        <ConfirmDialog
          title={t('reports.delete.confirmTitle', { name: report.name })}
          confirm={t('reports.delete.confirm')}
          cancel={t('reports.cancel')}
          pending={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate(paths.list) })}
        >
          <p>{t('reports.delete.body')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
