import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { DIALECT_LABELS, paths, useConnectionList, whereOf } from './api';
import { Health } from './parts';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import './connections.css';
import { LoadMore } from '../../ui/LoadMore';

/** Every connection: name, dialect, where it points, read-only, its health (the last test). */
export function ConnectionList() {
  useTitle('connections.title');
  const list = useConnectionList();

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

  return (
    <>
      <Breadcrumbs items={[{ label: t('connections.title') }]} />
      <h1>{t('connections.title')}</h1>
      {connections.length === 0 ? (
        <div className="conn-empty">
          <h2>{t('connections.empty.title')}</h2>
          <p>{t('connections.empty.body')}</p>
          <Link href={paths.create} className="conn-button">
            {t('connections.add')}
          </Link>
        </div>
      ) : (
        <>
          <p>{t('connections.intro')}</p>
          <p>
            <Link href={paths.create} className="conn-button">
              {t('connections.add')}
            </Link>
          </p>
          <table className="conn-table">
            <caption className="conn-visually-hidden">{t('connections.listCaption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('connections.col.name')}</th>
                <th scope="col">{t('connections.col.dialect')}</th>
                <th scope="col">{t('connections.col.where')}</th>
                <th scope="col">{t('connections.col.access')}</th>
                <th scope="col">{t('connections.col.health')}</th>
              </tr>
            </thead>
            <tbody>
              {connections.map((c) => (
                <tr key={c.id} data-testid="connection">
                  <th scope="row">
                    <Link href={paths.one(c.id)}>{c.name}</Link>
                  </th>
                  <td>{t(DIALECT_LABELS[c.dialect])}</td>
                  <td className="conn-where">{whereOf(c)}</td>
                  <td>{c.readOnly ? t('connections.readOnly') : t('connections.readWrite')}</td>
                  <td>
                    <Health connection={c} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadMore list={list} label={t('connections.more')} />
        </>
      )}
    </>
  );
}
