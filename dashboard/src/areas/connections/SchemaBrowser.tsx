import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading } from '../../ui';
import { paths, useSchema, type EffectiveTable } from './api';
import { ConnectionScreen } from './parts';
import { Introspect } from './Overview';
import './connections.css';
import { DataTable, type DataColumn } from '../../ui/DataTable';

/** Every table and view of the latest snapshot: columns with types, primary key, indexes, foreign keys. */
export function SchemaBrowser() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.schema">
      {() => <Browser id={id} />}
    </ConnectionScreen>
  );
}

function Browser({ id }: { id: string }) {
  const schema = useSchema(id);
  const [filter, setFilter] = useState('');
  if (schema.isPending) return <Loading />;
  if (schema.isError) return <ErrorPanel error={schema.error} onRetry={() => void schema.refetch()} />;
  if (schema.data === null)
    return (
      <>
        <p>{t('connections.schema.notRead')}</p>
        <Introspect id={id} />
      </>
    );
  const { model, problems } = schema.data;
  const needle = filter.trim().toLowerCase();
  const tables = model.tables.filter((x) => !needle || x.ref.toLowerCase().includes(needle) || x.display.label.toLowerCase().includes(needle));
  return (
    <>
      <p>
        {t('connections.schema.intro', {
          tables: model.tables.filter((x) => x.kind === 'table').length,
          views: model.tables.filter((x) => x.kind === 'view').length,
        })}
      </p>
      {problems.length > 0 && (
        <div className="form-error" role="status">
          <p>{t('connections.schema.problems', { count: problems.length })}</p>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>{p.column ? `${p.table}.${p.column}` : p.table}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="field conn-filter">
        <label htmlFor="conn-schema-filter">{t('connections.schema.filter')}</label>
        <input id="conn-schema-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      {tables.length === 0 && <p>{t('connections.schema.noMatch')}</p>}
      {tables.map((table, i) => (
        <TableSchema key={table.ref} id={id} table={table} anchor={`conn-table-${i}`} />
      ))}
      {model.enums.length > 0 && (
        <section aria-labelledby="conn-enums" className="conn-card">
          <h2 id="conn-enums">{t('connections.schema.enums')}</h2>
          <ul>
            {model.enums.map((e) => (
              <li key={`${e.schema ?? ''}.${e.name}`}>
                <code>{e.schema ? `${e.schema}.${e.name}` : e.name}</code>
                {': '}
                {e.values.join(', ')}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/** A table's columns as the schema browser lists them: name (heading its row), label, type, null, default, flags. */
const schemaColumns = (pk: ReadonlySet<string>): ReadonlyArray<DataColumn<EffectiveTable['columns'][number]>> => [
  { id: 'name', header: t('connections.schema.col.name'), rowHeader: true, cell: (col) => <code>{col.name}</code> },
  { id: 'label', header: t('connections.schema.col.label'), cell: (col) => col.display.label },
  {
    id: 'type',
    header: t('connections.schema.col.type'),
    cell: (col) => (
      <>
        {col.nativeType} <span className="hint">({col.type})</span>
      </>
    ),
  },
  { id: 'null', header: t('connections.schema.col.null'), cell: (col) => (col.nullable ? t('connections.yes') : t('connections.no')) },
  { id: 'default', header: t('connections.schema.col.default'), cell: (col) => (col.default !== null ? <code>{col.default}</code> : '') },
  {
    id: 'notes',
    header: t('connections.schema.col.notes'),
    className: 'conn-notes',
    cell: (col) => (
      <>
        {pk.has(col.name) && <span className="conn-tag">{t('connections.flag.primaryKey')}</span>}
        {col.autoIncrement && <span className="conn-tag">{t('connections.flag.autoIncrement')}</span>}
        {col.display.hidden && <span className="conn-tag">{t('connections.flag.hidden')}</span>}
        {col.display.personal && <span className="conn-tag">{t('connections.flag.personal')}</span>}
        {col.display.secret && <span className="conn-tag">{t('connections.flag.secret')}</span>}
        {col.display.format && <span className="conn-tag">{t('connections.flag.format', { format: col.display.format })}</span>}
      </>
    ),
  },
];

function TableSchema({ id, table, anchor }: { id: string; table: EffectiveTable; anchor: string }) {
  return (
    <section aria-labelledby={anchor} className="conn-card" data-testid="schema-table">
      <h2 id={anchor}>
        {table.display.label} <span className="conn-ref">{table.ref}</span>
      </h2>
      <p className="conn-meta">
        <span>{table.kind === 'view' ? t('connections.schema.view') : t('connections.schema.table')}</span>
        {table.display.hidden && <span className="conn-tag">{t('connections.flag.hidden')}</span>}
        {table.display.displayColumn && <span>{t('connections.schema.displayColumn', { column: table.display.displayColumn })}</span>}
        <Link href={paths.table(id, table.ref)}>{t('connections.schema.openGrid', { table: table.display.label })}</Link>
      </p>
      {table.comment && <p className="hint">{table.comment}</p>}
      <DataTable
        className="conn-table"
        caption={t('connections.schema.columnsOf', { table: table.ref })}
        columns={schemaColumns(new Set(table.primaryKey?.columns ?? []))}
        rows={table.columns}
        rowKey={(col) => col.name}
      />
      <dl className="conn-facts">
        <dt>{t('connections.schema.primaryKey')}</dt>
        <dd>{table.primaryKey ? table.primaryKey.columns.join(', ') : t('connections.schema.none')}</dd>
        <dt>{t('connections.schema.indexes')}</dt>
        <dd>
          {table.indexes.length === 0 ? (
            t('connections.schema.none')
          ) : (
            <ul>
              {table.indexes.map((ix, i) => (
                <li key={i}>
                  {t(ix.unique ? 'connections.schema.uniqueIndex' : 'connections.schema.index', { name: ix.name ?? '', columns: ix.columns.join(', ') })}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>{t('connections.schema.foreignKeys')}</dt>
        <dd>
          {table.foreignKeys.length === 0 ? (
            t('connections.schema.none')
          ) : (
            <ul>
              {table.foreignKeys.map((fk, i) => (
                <li key={i}>
                  {t('connections.schema.foreignKey', {
                    columns: fk.columns.join(', '),
                    table: fk.referencedSchema && fk.referencedSchema !== 'public' ? `${fk.referencedSchema}.${fk.referencedTable}` : fk.referencedTable,
                    referenced: fk.referencedColumns.join(', '),
                    onDelete: fk.onDelete,
                  })}
                </li>
              ))}
            </ul>
          )}
        </dd>
        {table.uniques.length > 0 && (
          <>
            <dt>{t('connections.schema.uniques')}</dt>
            <dd>
              <ul>
                {table.uniques.map((u, i) => (
                  <li key={i}>{u.columns.join(', ')}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {table.checks.length > 0 && (
          <>
            <dt>{t('connections.schema.checks')}</dt>
            <dd>
              <ul>
                {table.checks.map((c, i) => (
                  <li key={i}>
                    <code>{c.expression}</code>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
