import { useEffect, useRef } from 'react';
import { Link, useParams } from 'wouter';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Loading } from '../../ui';
import { paths, useDeleteConnection, useWhatGoes, type Connection } from './api';
import { ConnectionScreen } from './parts';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import './connections.css';

/** What a deletion takes with it, by the names the API counts them under (the audit entry's `removed`). */
const COUNTED: Record<string, MessageId> = {
  schemaSnapshots: 'connections.delete.count.schemaSnapshots',
  schemaOverrides: 'connections.delete.count.schemaOverrides',
  pages: 'connections.delete.count.pages',
  publicEndpoints: 'connections.delete.count.publicEndpoints',
  publicKeyGrants: 'connections.delete.count.publicKeyGrants',
  publicSessions: 'connections.delete.count.publicSessions',
  undoEntries: 'connections.delete.count.undoEntries',
};

const countText = (what: string, count: number) => (COUNTED[what] ? t(COUNTED[what], { count }) : t('connections.delete.count.other', { what, count }));

/**
 * Deleting a connection, after reading what goes with it (useWhatGoes); after it, the audit
 * entry of the deletion says what the server actually removed.
 */
export function DeleteConnection() {
  const { id = '' } = useParams<{ id: string }>();
  const remove = useDeleteConnection(id);
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (remove.isSuccess) outcome.current?.focus();
  }, [remove.isSuccess]);

  if (remove.isSuccess) {
    const { name, removed } = remove.data;
    const entries = Object.entries(removed ?? {}).filter(([, n]) => n > 0);
    return (
      <>
        <Breadcrumbs items={[{ label: t('connections.title'), href: paths.list }, { label: t('connections.delete.doneTitle') }]} />
        <h1>{t('connections.delete.doneTitle')}</h1>
        <div ref={outcome} tabIndex={-1} className="outcome">
          <p className="notice" role="status">
            {t('connections.delete.done', { name })}
          </p>
          {removed !== null && (
            <>
              <h2>{t('connections.delete.removedTitle')}</h2>
              {entries.length === 0 ? (
                <p>{t('connections.delete.removedNothing')}</p>
              ) : (
                <ul data-testid="removed">
                  {entries.map(([what, n]) => (
                    <li key={what}>{countText(what, n)}</li>
                  ))}
                </ul>
              )}
            </>
          )}
        </div>
        <p>
          <Link href={paths.list}>{t('connections.delete.back')}</Link>
        </p>
      </>
    );
  }

  return (
    <ConnectionScreen id={id} section="connections.tab.delete" paused={remove.isPending}>
      {(c) => (
        <>
          <WhatGoes connection={c} paused={remove.isPending} />
          {remove.isError && (
            <div className="form-error" role="alert">
              <p>{errorText(remove.error)}</p>
            </div>
          )}
          <div className="conn-actions">
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(c)}>
              {remove.isPending ? t('connections.delete.running') : t('connections.delete.confirm', { name: c.name })}
            </button>
            <Link href={paths.one(c.id)}>{t('connections.delete.cancel')}</Link>
          </div>
        </>
      )}
    </ConnectionScreen>
  );
}

function WhatGoes({ connection: c, paused }: { connection: Connection; paused: boolean }) {
  const goes = useWhatGoes(c.id, !paused);
  return (
    <section aria-labelledby="conn-what-goes" className="conn-card conn-danger-zone">
      <h2 id="conn-what-goes">{t('connections.delete.whatGoes')}</h2>
      <p>{t('connections.delete.intro', { name: c.name })}</p>
      {goes.isPending ? (
        <Loading />
      ) : goes.isError ? (
        <p>{errorText(goes.error)}</p>
      ) : (
        <ul data-testid="what-goes">
          {goes.data.snapshots !== null && (
            <li>
              {goes.data.snapshots.more
                ? t('connections.delete.count.manySnapshots', { count: goes.data.snapshots.count })
                : countText('schemaSnapshots', goes.data.snapshots.count)}
            </li>
          )}
          {goes.data.overrides !== null && <li>{t('connections.delete.count.overriddenTables', { count: goes.data.overrides })}</li>}
          {goes.data.pages !== null && <li>{countText('pages', goes.data.pages)}</li>}
          {goes.data.endpoints !== null && <li>{countText('publicEndpoints', goes.data.endpoints)}</li>}
          <li>{t('connections.delete.alsoGoes')}</li>
        </ul>
      )}
      <p>{t('connections.delete.stays')}</p>
    </section>
  );
}
