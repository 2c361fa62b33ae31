import type { FormEvent } from 'react';
import { Link, useParams, useSearch } from 'wouter';
import type { Schemas } from '../../api/types';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { Field, Loading, SelectField, useTitle } from '../../ui';
import { LoadError, ScreenTitle, when } from './common';
import { useAuditEntry, useAuditList, useConnectionTables, useKeyNames, usePeopleNames, useRoles, useScopeConnections, type Role } from './api';
import { paths } from '../data/view';
import type { ValueColumn } from '../../values/format';
import { referenceTarget, displayColumn } from '../../values/references';
import { recordIdText, rowName } from '../../values/row-name';
import { Value } from '../../values/Value';
import { LoadMore } from '../../ui/LoadMore';
import { DataTable } from '../../ui/DataTable';
import { Section } from '../../ui/Section';
import { BackLink } from '../../ui/BackLink';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { AuditIcon, CloseIcon, SearchIcon } from '../../ui/icons';

type Entry = Schemas['AuditEntry'];
type ActorType = Entry['actor']['type'];
const ACTOR_TYPES: ActorType[] = ['user', 'apiKey', 'anonymous', 'system'];
const ANY = '';
const FILTERS = ['actorId', 'actorType', 'action', 'targetType', 'targetId', 'from', 'to'] as const;

/** Names of users, API keys and, when a shown entry's target is a table of one, connections (their ids never collide). */
function useNames(entries: readonly Entry[]): Map<string, string> | undefined {
  const people = usePeopleNames();
  const keys = useKeyNames();
  const connections = useScopeConnections(entries.some((e) => e.target?.type === 'data.table'));
  if (!people.data && !keys.data && !connections.data) return undefined;
  return new Map([...(people.data ?? []), ...(keys.data ?? []), ...(connections.data ?? []).map((c) => [c.id, c.name] as const)]);
}

function actorText(actor: Entry['actor'], names: Map<string, string> | undefined): string {
  const type = t(`people.audit.actorType.${actor.type}`);
  if (!actor.id) return type;
  return t('people.audit.actorWho', { type, who: names?.get(actor.id) ?? actor.id });
}

/** Known names of targets (users, roles), else the id as recorded. */
function targetText(target: Entry['target'], names: Map<string, string> | undefined, roles: Role[] | undefined): string {
  if (!target) return t('people.audit.noTarget');
  if (!target.id) return target.type;
  if (target.type === 'data.table') {
    // `<connection id>/<table ref>` (plugins/data/service.ts): the connection by its name.
    const at = target.id.indexOf('/');
    const conn = target.id.slice(0, at);
    return t('people.audit.targetTable', { table: target.id.slice(at + 1), connection: names?.get(conn) ?? conn });
  }
  const known =
    target.type === 'user' || target.type === 'apiKey'
      ? names?.get(target.id)
      : target.type === 'role'
        ? roles?.find((r) => r.id === target.id)?.name
        : undefined;
  return `${target.type} ${known ?? target.id}`;
}

/** A target, as a link to everything recorded about it. */
function Target({ target, names, roles }: { target: Entry['target']; names: Map<string, string> | undefined; roles: Role[] | undefined }) {
  const text = targetText(target, names, roles);
  if (!target?.id) return <>{text}</>;
  const qs = new URLSearchParams({ targetType: target.type, targetId: target.id });
  return (
    <Link href={`/audit?${qs.toString()}`} aria-label={t('people.audit.targetHistory', { target: text })}>
      {text}
    </Link>
  );
}

/** `datetime-local` values (the person's own time zone) and back. */
const toLocalInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

/** The audit trail, newest first: filters in the address (so back returns to them), "load more". */
export function Audit() {
  useTitle('nav.audit');
  const search = new URLSearchParams(useSearch());
  const filters = Object.fromEntries(FILTERS.map((k) => [k, search.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const names = usePeopleNames();
  const roles = useRoles();

  const query = {
    ...(filters.actorId ? { actorId: filters.actorId } : {}),
    ...(filters.actorType ? { actorType: filters.actorType as ActorType } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.targetType ? { targetType: filters.targetType } : {}),
    ...(filters.targetId ? { targetId: filters.targetId } : {}),
    ...(filters.from ? { from: Number(filters.from) } : {}),
    ...(filters.to ? { to: Number(filters.to) } : {}),
  };
  const list = useAuditList(query);
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const allNames = useNames(entries);

  const onFilter = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const out = new URLSearchParams();
    for (const k of ['actorId', 'actorType', 'action', 'targetType', 'targetId'] as const) {
      const v = String(f.get(k) ?? '').trim();
      if (v) out.set(k, v);
    }
    for (const k of ['from', 'to'] as const) {
      const v = String(f.get(k) ?? '');
      const ms = v ? new Date(v).getTime() : NaN;
      if (Number.isFinite(ms)) out.set(k, String(ms));
    }
    const qs = out.toString();
    navigate(qs ? `/audit?${qs}` : '/audit');
  };

  // The actions seen so far, and their families (`users.`), as suggestions.
  const actions = [...new Set(entries.flatMap((e) => [e.action, e.action.replace(/[^.]+$/, '')]))].filter((a) => a !== '').sort();
  const listPath = search.size ? `/audit?${search.toString()}` : '/audit';
  const filtered = FILTERS.some((k) => filters[k]);
  return (
    <>
      <ScreenTitle id="nav.audit" description={t('people.audit.intro')} />
      <form className="people-filters filter-bar" role="search" aria-label={t('people.audit.filterLabel')} onSubmit={onFilter} key={search.toString()}>
        <SelectField
          label="people.audit.actor"
          name="actorId"
          className="people-select"
          defaultValue={filters.actorId}
          options={[
            { value: ANY, label: t('people.audit.anyone') },
            ...[...(names.data ?? new Map<string, string>())].map(([id, name]) => ({ value: id, label: name })),
          ]}
        />
        <SelectField
          label="people.audit.actorKind"
          name="actorType"
          className="people-select"
          defaultValue={filters.actorType}
          options={[{ value: ANY, label: t('people.audit.anyKind') }, ...ACTOR_TYPES.map((a) => ({ value: a, label: t(`people.audit.actorType.${a}`) }))]}
        />
        <Field label="people.audit.action" name="action" hint="people.audit.actionHint" list="audit-actions" autoComplete="off" defaultValue={filters.action} />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <Field label="people.audit.targetType" name="targetType" defaultValue={filters.targetType} />
        <Field label="people.audit.targetId" name="targetId" defaultValue={filters.targetId} />
        <Field label="people.audit.from" name="from" type="datetime-local" defaultValue={filters.from ? toLocalInput(Number(filters.from)) : ''} />
        <Field label="people.audit.to" name="to" type="datetime-local" defaultValue={filters.to ? toLocalInput(Number(filters.to)) : ''} />
        <div className="actions">
          <button type="submit" className="secondary">
            <SearchIcon className="icon" aria-hidden="true" />
            {t('people.filter.apply')}
          </button>
          {filtered && (
            <button type="button" className="secondary" onClick={() => navigate('/audit')}>
              <CloseIcon className="icon" aria-hidden="true" />
              {t('people.filter.clear')}
            </button>
          )}
        </div>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} />
      ) : entries.length === 0 ? (
        <EmptyState icon={filtered ? SearchIcon : AuditIcon}>
          <p role="status">{filtered ? t('people.audit.noMatch') : t('people.audit.empty')}</p>
        </EmptyState>
      ) : (
        <DataTable
          caption={t('people.audit.caption', { count: entries.length })}
          columns={[
            {
              id: 'at',
              header: t('people.audit.at'),
              rowHeader: true,
              cell: (e) => (
                <Link href={`/audit/${e.id}`} state={{ back: listPath }} aria-label={t('people.audit.open', { action: e.action, when: when(e.at) })}>
                  {when(e.at)}
                </Link>
              ),
            },
            { id: 'actor', header: t('people.audit.actor'), cell: (e) => actorText(e.actor, allNames) },
            {
              id: 'action',
              header: t('people.audit.action'),
              cell: (e) => (
                <Badge tone="neutral" dot={false}>
                  <code>{e.action}</code>
                </Badge>
              ),
            },
            { id: 'target', header: t('people.audit.target'), cell: (e) => <Target target={e.target} names={allNames} roles={roles.data} /> },
          ]}
          rows={entries}
          rowKey={(e) => e.id}
          rowAttributes={() => ({ 'data-testid': 'audit-row' })}
        />
      )}
      <LoadMore list={list} label={t('people.loadMore')} busyLabel={t('app.loading')} />
    </>
  );
}

const show = (v: unknown) => (v === undefined ? t('people.audit.absent') : JSON.stringify(v));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A data write's diff as plugins/data/effects.ts records it: the table and each row's values before and after. */
interface DataDiff {
  connectionId: string;
  table: string;
  changes: Array<{ op: string; recordId: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>;
}

function isDataDiff(diff: unknown): diff is DataDiff {
  return (
    isRecord(diff) &&
    typeof diff.connectionId === 'string' &&
    typeof diff.table === 'string' &&
    Array.isArray(diff.changes) &&
    diff.changes.every((c) => isRecord(c) && typeof c.op === 'string' && (c.before === null || isRecord(c.before)) && (c.after === null || isRecord(c.after)))
  );
}

type SchemaTable = Schemas['EffectiveSchemaTable'];
const CHANGE_OPS = ['create', 'update', 'delete'] as const;

/**
 * The rows a data write changed, each a before/after table of its columns read through the
 * display layer (the same as the grid), the row named by its display column or key values and
 * linked to its page; with the connection's schema unavailable, values are shown as stored.
 */
function DataChanges({ diff }: { diff: DataDiff }) {
  const schema = useConnectionTables(diff.connectionId);
  const tables = schema.data ?? [];
  const table = tables.find((x) => x.ref === diff.table);
  const keyColumns = table?.primaryKey?.columns ?? [];
  const keyTypes = keyColumns.map((name) => table?.columns.find((c) => c.name === name)?.type ?? 'string');
  const columnOf = (name: string): ValueColumn => table?.columns.find((c) => c.name === name) ?? { name, type: 'other', nativeType: '', scale: null };
  return (
    <>
      {diff.changes.map((change, i) => {
        const before = change.before ?? {};
        const after = change.after ?? {};
        const whole = change.after ?? change.before ?? {};
        const named = table ? rowName(whole, table.display.displayColumn ?? displayColumn(table), []) : null;
        const row = named ?? (change.recordId !== null ? recordIdText(change.recordId, keyTypes) : '');
        const op = (CHANGE_OPS as readonly string[]).includes(change.op) ? (change.op as (typeof CHANGE_OPS)[number]) : null;
        const columns = [...new Set([...Object.keys(before), ...Object.keys(after)])];
        const same = (c: string) => JSON.stringify(before[c]) === JSON.stringify(after[c]);
        const cell = (values: Record<string, unknown>, side: DataChange['before'], c: string) =>
          side === null || !(c in values) ? (
            t('people.audit.absent')
          ) : (
            <Value column={columnOf(c)} value={values[c]} reference={table ? referenceTarget(diff.connectionId, table, tables, c) : null} />
          );
        return (
          <section key={`${change.recordId ?? ''}:${i}`} className="people-change" data-testid="audit-change">
            <h3>{op ? t(`people.audit.change.${op}`, { row }) : t('people.audit.change.other', { row, op: change.op })}</h3>
            {change.recordId !== null && change.op !== 'delete' && (
              <p>
                <Link href={paths.row(diff.connectionId, diff.table, change.recordId)}>{t('people.audit.openRow', { row })}</Link>
              </p>
            )}
            <DataTable
              className="people-diff"
              caption={t('people.audit.changeCaption', { row })}
              columns={[
                { id: 'column', header: t('people.audit.column'), rowHeader: true, cell: (c) => columnOf(c).display?.label || c },
                { id: 'before', header: t('people.audit.before'), cell: (c) => cell(before, change.before, c) },
                { id: 'after', header: t('people.audit.after'), cell: (c) => cell(after, change.after, c) },
              ]}
              rows={columns}
              rowKey={(c) => c}
              rowAttributes={(c) => ({ className: same(c) ? undefined : 'people-changed' })}
            />
          </section>
        );
      })}
    </>
  );
}

type DataChange = DataDiff['changes'][number];

/** A diff as recorded: a data write's rows, before/after per column when it has both, else the recorded values. */
function Diff({ diff }: { diff: unknown }) {
  if (diff === null || diff === undefined) return <p>{t('people.audit.noDiff')}</p>;
  if (isDataDiff(diff)) return <DataChanges diff={diff} />;
  if (isRecord(diff) && 'before' in diff && 'after' in diff) {
    const before = diff.before;
    const after = diff.after;
    if (isRecord(before) || isRecord(after)) {
      const b = isRecord(before) ? before : {};
      const a = isRecord(after) ? after : {};
      const columns = [...new Set([...Object.keys(b), ...Object.keys(a)])];
      const same = (c: string) => JSON.stringify(b[c]) === JSON.stringify(a[c]);
      return (
        <DataTable
          className="people-diff"
          caption={t('people.audit.diffCaption')}
          columns={[
            { id: 'column', header: t('people.audit.column'), rowHeader: true, cell: (c) => c },
            { id: 'before', header: t('people.audit.before'), cell: (c) => <code>{show(b[c])}</code> },
            { id: 'after', header: t('people.audit.after'), cell: (c) => <code>{show(a[c])}</code> },
          ]}
          rows={columns}
          rowKey={(c) => c}
          rowAttributes={(c) => ({ className: same(c) ? undefined : 'people-changed' })}
        />
      );
    }
    return (
      <DataTable
        className="people-diff"
        caption={t('people.audit.diffCaption')}
        columns={[
          { id: 'before', header: t('people.audit.before'), cell: () => <pre>{JSON.stringify(before, null, 2)}</pre> },
          { id: 'after', header: t('people.audit.after'), cell: () => <pre>{JSON.stringify(after, null, 2)}</pre> },
        ]}
        rows={[diff]}
        rowKey={() => 'diff'}
      />
    );
  }
  if (isRecord(diff)) {
    return (
      <DataTable
        className="people-diff"
        caption={t('people.audit.recordedCaption')}
        columns={[
          { id: 'column', header: t('people.audit.column'), rowHeader: true, cell: ([k]) => k },
          { id: 'value', header: t('people.audit.value'), cell: ([, v]) => <code>{show(v)}</code> },
        ]}
        rows={Object.entries(diff)}
        rowKey={([k]) => k}
      />
    );
  }
  return <pre>{JSON.stringify(diff, null, 2)}</pre>;
}

/** One entry of the trail: who, what, when, from where, and its diff. */
export function AuditEntryPage() {
  useTitle('people.audit.entryTitle');
  const { id = '' } = useParams<{ id: string }>();
  const roles = useRoles();
  const entry = useAuditEntry(id);
  const names = useNames(entry.data ? [entry.data] : []);
  // Back to the list as it was filtered when the entry was opened from it.
  const state: unknown = window.history.state;
  const from =
    typeof state === 'object' && state !== null && 'back' in state && typeof state.back === 'string' && state.back.startsWith('/audit') ? state.back : '/audit';
  const back = <BackLink href={from}>{t('people.audit.back')}</BackLink>;
  if (entry.isPending) return <Loading />;
  if (entry.isError)
    return (
      <>
        {back}
        <h1>{t('people.audit.entryTitle')}</h1>
        <LoadError error={entry.error} onRetry={() => void entry.refetch()} />
      </>
    );
  const e = entry.data;
  return (
    <>
      {back}
      <PageHeader title={t('people.audit.entryHeading', { action: e.action })} />
      <dl className="people-details details-list card">
        <dt>{t('people.audit.at')}</dt>
        <dd>{when(e.at)}</dd>
        <dt>{t('people.audit.actor')}</dt>
        <dd>{actorText(e.actor, names)}</dd>
        <dt>{t('people.audit.target')}</dt>
        <dd>
          <Target target={e.target} names={names} roles={roles.data} />
        </dd>
        <dt>{t('people.audit.ip')}</dt>
        <dd>{e.ip ?? t('people.audit.unknown')}</dd>
        <dt>{t('people.audit.userAgent')}</dt>
        <dd>{e.userAgent ?? t('people.audit.unknown')}</dd>
        <dt>{t('people.audit.requestId')}</dt>
        <dd>
          <code>{e.requestId ?? t('people.audit.unknown')}</code>
        </dd>
      </dl>
      <Section id="audit-diff" icon={AuditIcon} title={t('people.audit.diff')} className="people-section">
        <Diff diff={e.diff} />
      </Section>
    </>
  );
}
