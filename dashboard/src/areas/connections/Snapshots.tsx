import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import type { Schemas } from '../../api/types';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading } from '../../ui';
import { useSchemaDiff, useSnapshots, when } from './api';
import { ConnectionScreen } from './parts';
import { Introspect } from './Overview';
import './connections.css';
import { DataTable, type DataColumn } from '../../ui/DataTable';

/** The option for "no choice" (the API's default). */
const NONE = '';

type SchemaDiff = Schemas['SchemaDiff'];
type Snapshot = Schemas['SchemaSnapshot'];

/** The snapshots' columns: when each was taken (the first, the latest, says so), its counts, how long it took. */
const snapshotColumns = (): ReadonlyArray<DataColumn<Snapshot>> => [
  {
    id: 'taken',
    header: t('connections.snapshots.col.taken'),
    rowHeader: true,
    cell: (s, i) => (i === 0 ? t('connections.snapshots.latest', { when: when(s.createdAt) }) : when(s.createdAt)),
  },
  { id: 'tables', header: t('connections.snapshots.col.tables'), cell: (s) => s.tableCount },
  { id: 'views', header: t('connections.snapshots.col.views'), cell: (s) => s.viewCount },
  { id: 'columns', header: t('connections.snapshots.col.columns'), cell: (s) => s.columnCount },
  { id: 'took', header: t('connections.snapshots.col.took'), cell: (s) => t('connections.snapshots.duration', { ms: s.durationMs }) },
];

/** The connection's schema snapshots, newest first, and what changed between two of them. */
export function Snapshots() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.snapshots">
      {() => <SnapshotsOf id={id} />}
    </ConnectionScreen>
  );
}

function SnapshotsOf({ id }: { id: string }) {
  const list = useSnapshots(id);
  const [pair, setPair] = useState<{ from?: string; to?: string }>({});
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  const snapshots = list.data.pages.flatMap((p) => p.snapshots);
  return (
    <>
      <p>{t('connections.snapshots.intro')}</p>
      <Introspect id={id} />
      {snapshots.length === 0 ? (
        <p>{t('connections.snapshots.none')}</p>
      ) : (
        <>
          <section aria-labelledby="conn-snapshots" className="conn-card">
            <h2 id="conn-snapshots">{t('connections.snapshots.title')}</h2>
            <DataTable
              className="conn-table"
              labelledBy="conn-snapshots"
              columns={snapshotColumns()}
              rows={snapshots}
              rowKey={(s) => s.id}
              rowAttributes={() => ({ 'data-testid': 'snapshot' })}
              loadMore={{ list, label: t('connections.more') }}
            />
          </section>
          <section aria-labelledby="conn-diff" className="conn-card">
            <h2 id="conn-diff">{t('connections.diff.title')}</h2>
            <ComparePicker snapshots={snapshots} onPick={setPair} />
            <Diff id={id} from={pair.from} to={pair.to} />
          </section>
        </>
      )}
    </>
  );
}

function ComparePicker({ snapshots, onPick }: { snapshots: Snapshot[]; onPick: (pair: { from?: string; to?: string }) => void }) {
  const ids = useId();
  const label = (s: Snapshot, i: number) => (i === 0 ? t('connections.snapshots.latest', { when: when(s.createdAt) }) : when(s.createdAt));
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('from') ?? '');
    const to = String(form.get('to') ?? '');
    onPick({ ...(from ? { from } : {}), ...(to ? { to } : {}) });
  };
  return (
    <form className="conn-row conn-compare" onSubmit={onSubmit}>
      <div className="field">
        <label htmlFor={`${ids}-from`}>{t('connections.diff.from')}</label>
        <select id={`${ids}-from`} name="from" defaultValue="">
          <option value={NONE}>{t('connections.diff.fromDefault')}</option>
          {snapshots.map((s, i) => (
            <option key={s.id} value={s.id}>
              {label(s, i)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${ids}-to`}>{t('connections.diff.to')}</label>
        <select id={`${ids}-to`} name="to" defaultValue="">
          <option value={NONE}>{t('connections.diff.toDefault')}</option>
          {snapshots.map((s, i) => (
            <option key={s.id} value={s.id}>
              {label(s, i)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <button type="submit" className="secondary">
          {t('connections.diff.compare')}
        </button>
      </div>
    </form>
  );
}

function Diff({ id, from, to }: { id: string; from?: string; to?: string }) {
  const diff = useSchemaDiff(id, from, to);
  if (diff.isPending) return <Loading />;
  if (diff.isError) return <ErrorPanel error={diff.error} />;
  const { diff: d, from: a, to: b } = diff.data;
  return (
    <div className="conn-diff" role="region" aria-label={t('connections.diff.regionLabel')}>
      <p>{a ? t('connections.diff.between', { from: when(a.createdAt), to: when(b.createdAt) }) : t('connections.diff.first', { to: when(b.createdAt) })}</p>
      {!d.changed ? <p>{t('connections.diff.same')}</p> : <DiffBody diff={d} />}
    </div>
  );
}

function DiffBody({ diff }: { diff: SchemaDiff }) {
  const { tables, enums } = diff;
  return (
    <>
      {tables.added.length > 0 && (
        <>
          <h3>{t('connections.diff.tablesAdded', { count: tables.added.length })}</h3>
          <ul>
            {tables.added.map((x) => (
              <li key={x.table} data-testid="diff-added">
                <code>{x.table}</code> {t('connections.diff.withColumns', { columns: x.columns.join(', ') })}
              </li>
            ))}
          </ul>
        </>
      )}
      {tables.removed.length > 0 && (
        <>
          <h3>{t('connections.diff.tablesRemoved', { count: tables.removed.length })}</h3>
          <ul>
            {tables.removed.map((x) => (
              <li key={x.table} data-testid="diff-removed">
                <code>{x.table}</code>
              </li>
            ))}
          </ul>
        </>
      )}
      {tables.changed.length > 0 && (
        <>
          <h3>{t('connections.diff.tablesChanged', { count: tables.changed.length })}</h3>
          <ul>
            {tables.changed.map((x) => (
              <li key={x.table} data-testid="diff-changed">
                <code>{x.table}</code>
                <ul>
                  {x.columns.added.map((c) => (
                    <li key={`+${c.name}`}>{t('connections.diff.columnAdded', { column: c.name, type: c.nativeType })}</li>
                  ))}
                  {x.columns.removed.map((c) => (
                    <li key={`-${c.name}`}>{t('connections.diff.columnRemoved', { column: c.name })}</li>
                  ))}
                  {x.columns.changed.map((c) =>
                    c.changes.map((ch) => (
                      <li key={`~${c.name}.${ch.field}`}>
                        {t('connections.diff.columnChanged', { column: c.name, field: ch.field, from: show(ch.from), to: show(ch.to) })}
                      </li>
                    )),
                  )}
                  {x.primaryKey && (
                    <li>
                      {t('connections.diff.primaryKey', { from: x.primaryKey.from?.columns.join(', ') ?? '—', to: x.primaryKey.to?.columns.join(', ') ?? '—' })}
                    </li>
                  )}
                  {x.indexes.added.map((ix, i) => (
                    <li key={`+ix${i}`}>{t('connections.diff.indexAdded', { columns: ix.columns.join(', ') })}</li>
                  ))}
                  {x.indexes.removed.map((ix, i) => (
                    <li key={`-ix${i}`}>{t('connections.diff.indexRemoved', { columns: ix.columns.join(', ') })}</li>
                  ))}
                  {x.foreignKeys.added.map((fk, i) => (
                    <li key={`+fk${i}`}>{t('connections.diff.foreignKeyAdded', { columns: fk.columns.join(', '), table: fk.referencedTable })}</li>
                  ))}
                  {x.foreignKeys.removed.map((fk, i) => (
                    <li key={`-fk${i}`}>{t('connections.diff.foreignKeyRemoved', { columns: fk.columns.join(', '), table: fk.referencedTable })}</li>
                  ))}
                  {x.uniques.added.length +
                    x.uniques.removed.length +
                    x.checks.added.length +
                    x.checks.removed.length +
                    x.checks.changed.length +
                    x.uniques.changed.length >
                    0 && <li>{t('connections.diff.constraints')}</li>}
                  {x.columnOrder && <li>{t('connections.diff.columnOrder')}</li>}
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
      {enums.added.length + enums.removed.length + enums.changed.length > 0 && (
        <>
          <h3>{t('connections.diff.enums')}</h3>
          <ul>
            {enums.added.map((e) => (
              <li key={`+${e.name}`}>{t('connections.diff.enumAdded', { name: e.name, values: e.values.join(', ') })}</li>
            ))}
            {enums.removed.map((e) => (
              <li key={`-${e.name}`}>{t('connections.diff.enumRemoved', { name: e.name })}</li>
            ))}
            {enums.changed.map((e) => (
              <li key={`~${e.to.name}`}>{t('connections.diff.enumChanged', { name: e.to.name, values: e.to.values.join(', ') })}</li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
