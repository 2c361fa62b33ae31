import { t } from '../../i18n/t';
import './transfer.css';
import { Link } from 'wouter';
import type { Column, Table } from './api';
import { Badge, type BadgeTone } from '../../ui/Badge';

/** Dates in the person's own locale (the browser's), as Sessions shows them. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export const when = (ms: number | null) => (ms === null ? t('transfer.never') : dateFormat.format(new Date(ms)));

/** A job's, an import's or an export's state in words. */
export const stateText = (state: string) => t('transfer.state', { state });

/** A job's, an import's or an export's state as a badge's colour (DB60). */
export function stateTone(state: string): BadgeTone {
  if (state === 'succeeded' || state === 'ready' || state === 'done') return 'success';
  if (state === 'failed') return 'danger';
  if (state === 'cancelled' || state === 'expired') return 'warning';
  if (state === 'running' || state === 'validating' || state === 'importing') return 'accent';
  return 'neutral';
}

/** A state in words, as a badge. */
export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <Badge tone={stateTone(state)} testId={testId}>
      {stateText(state)}
    </Badge>
  );
}

/** "Import" / "Export" / the raw kind. */
export function kindText(kind: string): string {
  return t('transfer.kind', { kind: kind === 'import.run' ? 'import' : kind === 'export.run' ? 'export' : 'other', raw: kind });
}

/** The grid of a table (the data area's screen). */
export const tablePath = (conn: string, table: string) => `/connections/${encodeURIComponent(conn)}/tables/${encodeURIComponent(table)}`;

/** A route parameter as written, whether or not the router decoded it. */
export function param(raw: string | undefined): string {
  if (raw === undefined) return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Progress of a job: a native progress bar (its value is read out by screen readers) and the
 * percentage as text; without a known total, an indeterminate bar.
 */
export function Progress({ value, label }: { value: number | null; label: string }) {
  return (
    <div className="transfer-progress">
      <progress max={1} value={value ?? undefined} aria-label={label} />
      <span>{value === null ? t('transfer.progressUnknown') : t('transfer.percent', { value })}</span>
    </div>
  );
}

/** The label a person knows a table or a column by. */
export const tableLabel = (table: Table) => table.display.label || table.name;
export const columnLabel = (column: Column) => column.display.label || column.name;

export const importReportUrl = (id: string) => `/api/v1/imports/${encodeURIComponent(id)}/error-report`;
export const exportDownloadUrl = (id: string) => `/api/v1/exports/${encodeURIComponent(id)}/download`;

/** "State: running", and the link to the job behind it once there is one. */
export function StateLine({ state, jobId }: { state: string; jobId: string | null | undefined }) {
  return (
    <p>
      {t('transfer.stateIs', { state: stateText(state) })}
      {jobId && (
        <>
          {' '}
          <Link href={`/jobs/${encodeURIComponent(jobId)}`}>{t('transfer.jobLink')}</Link>
        </>
      )}
    </p>
  );
}
