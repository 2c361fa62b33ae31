import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { DIALECT_LABELS, paths, useConnectionList, whereOf, type Connection } from './api';
import { Health } from './parts';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import './connections.css';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { useCan } from '../account/api';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { AddIcon, ConnectionsIcon } from '../../ui/icons';

/** The list's columns; the name heads each row. */
const columns = (): ReadonlyArray<DataColumn<Connection>> => [
  { id: 'name', header: t('connections.col.name'), rowHeader: true, cell: (c) => <Link href={paths.one(c.id)}>{c.name}</Link> },
  { id: 'dialect', header: t('connections.col.dialect'), cell: (c) => t(DIALECT_LABELS[c.dialect]) },
  { id: 'where', header: t('connections.col.where'), className: 'conn-where', cell: (c) => whereOf(c) },
  { id: 'access', header: t('connections.col.access'), cell: (c) => (c.readOnly ? t('connections.readOnly') : t('connections.readWrite')) },
  { id: 'health', header: t('connections.col.health'), cell: (c) => <Health connection={c} /> },
];

/** Every connection: name, dialect, where it points, read-only, its health (the last test). */
export function ConnectionList() {
  useTitle('connections.title');
  const list = useConnectionList();
  const canAdd = useCan('connections.write');

  if (list.isPending) return <Loading />;
  if (list.isError)
    return (
      <>
        <Breadcrumbs items={[{ label: t('connections.title') }]} />
        <h1>{t('connections.title')}</h1>
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      </>
    );
  const connections = list.data.pages.flatMap((p) => p.connections);
  const addLink = canAdd && (
    <Link href={paths.create} className="button">
      <AddIcon className="icon" aria-hidden="true" />
      {t('connections.add')}
    </Link>
  );

  return (
    <>
      <Breadcrumbs items={[{ label: t('connections.title') }]} />
      {connections.length === 0 ? (
        <>
          <h1>{t('connections.title')}</h1>
          <EmptyState icon={ConnectionsIcon} action={addLink}>
            <h2>{t('connections.empty.title')}</h2>
            <p>{t('connections.empty.body')}</p>
          </EmptyState>
        </>
      ) : (
        <>
          <PageHeader title={t('connections.title')} description={t('connections.intro')} actions={addLink} />
          <DataTable
            className="conn-table"
            caption={t('connections.listCaption')}
            captionHidden
            columns={columns()}
            rows={connections}
            rowKey={(c) => c.id}
            rowAttributes={() => ({ 'data-testid': 'connection' })}
            loadMore={{ list, label: t('connections.more') }}
          />
        </>
      )}
    </>
  );
}
