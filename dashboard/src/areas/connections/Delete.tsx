import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'wouter';
import { api, ApiError, ok } from '../../api/client';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Loading } from '../../ui';
import { CONNECTIONS, connectionKey, paths, type Connection } from './data';
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
 * Deleting a connection, after reading what goes with it. The API offers no dry run of the
 * DELETE, so the counts before are read from what the dashboard can list (snapshots, display
 * overrides, generated pages through the generator's dry run, stored public endpoints); after
 * it, the audit entry of the deletion says what the server actually removed.
 */
export function DeleteConnection() {
  const { id = '' } = useParams<{ id: string }>();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async (c: Connection) => {
      await ok(api.DELETE('/connections/{id}', { params: { path: { id: c.id } } }));
      // The server's own counts, as its audit entry recorded them (no audit right: none shown).
      let removed: Record<string, number> | null = null;
      try {
        const entries = (
          await ok(api.GET('/audit', { params: { query: { action: 'connections.delete', targetType: 'connection', targetId: c.id, limit: 1 } } }))
        ).data.entries;
        const diff = entries[0]?.diff as { removed?: Record<string, number> } | null | undefined;
        removed = diff?.removed ?? null;
      } catch {
        removed = null;
      }
      return { name: c.name, removed };
    },
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: connectionKey(id) });
      void queryClient.invalidateQueries({ queryKey: CONNECTIONS });
    },
  });
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

/** The counts the dashboard can read before deleting; null where it may not read them. */
function useWhatGoes(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...connectionKey(id), 'what-goes'],
    enabled,
    staleTime: 0,
    queryFn: async () => {
      const soft = async <T,>(read: () => Promise<T>): Promise<T | null> => {
        try {
          return await read();
        } catch (err) {
          if (err instanceof ApiError && err.status >= 400 && err.status < 500) return null;
          throw err;
        }
      };
      const snapshots = await soft(async () => {
        const d = (await ok(api.GET('/connections/{id}/schema/snapshots', { params: { path: { id }, query: { limit: 500 } } }))).data;
        return { count: d.snapshots.length, more: d.nextCursor !== null };
      });
      const overrides = await soft(
        async () => (await ok(api.GET('/connections/{id}/schema/overrides', { params: { path: { id } } }))).data.overrides.tables.length,
      );
      // Pages generated for its tables: the generator's dry run names those already there.
      const pages = await soft(async () => {
        const schema = (await ok(api.GET('/connections/{id}/schema', { params: { path: { id } } }))).data;
        const tables = schema.model.tables.map((x) => x.ref);
        if (tables.length === 0) return 0;
        return (await ok(api.POST('/connections/{id}/generate', { params: { path: { id } }, body: { tables, dryRun: true } }))).data.existing.length;
      });
      const endpoints = await soft(async () => {
        const d = (await ok(api.GET('/public-scopes', { params: { query: { connectionId: id, limit: 500 } } }))).data;
        return d.scopes.filter((s) => !s.virtual).length;
      });
      return { snapshots, overrides, pages, endpoints };
    },
  });
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
