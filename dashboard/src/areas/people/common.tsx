import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { api, ApiError, ok, type Schemas } from '../../api/client';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Loading } from '../../ui';
import './people.css';

export type Role = Schemas['Role'];
export type Grant = Schemas['Grant'];
export type CatalogEntry = Schemas['PermissionCatalogEntry'];

/** Query keys of the area: a write invalidates its key and the lists that show it. */
export const PEOPLE_KEYS = {
  users: ['people', 'users'] as const,
  user: (id: string) => ['people', 'users', id] as const,
  roles: ['people', 'roles'] as const,
  grants: ['people', 'grants'] as const,
  catalog: ['people', 'catalog'] as const,
  apiKeys: ['people', 'api-keys'] as const,
  audit: ['people', 'audit'] as const,
  connections: ['people', 'connections'] as const,
};

/** Dates in the person's own locale (the browser's), not the catalogue's. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));

/** Every page of a keyset list (roles, the catalog: a few dozen at most). */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const p = await page(cursor);
    out.push(...p.items);
    if (!p.nextCursor) break;
    cursor = p.nextCursor;
  }
  return out;
}

export function useRoles(enabled = true) {
  return useQuery({
    queryKey: PEOPLE_KEYS.roles,
    enabled,
    queryFn: () =>
      allPages(async (cursor) => {
        const d = (await ok(api.GET('/roles', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        return { items: d.roles, nextCursor: d.nextCursor };
      }),
  });
}

export function useCatalog() {
  return useQuery({
    queryKey: PEOPLE_KEYS.catalog,
    staleTime: Infinity,
    queryFn: () =>
      allPages(async (cursor) => {
        const d = (await ok(api.GET('/permissions/catalog', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        return { items: d.permissions, nextCursor: d.nextCursor };
      }),
  });
}

/** A role's name from its id; the id itself when the role is gone. */
export function roleName(roles: Role[] | undefined, id: string): string {
  return roles?.find((r) => r.id === id)?.name ?? id;
}

/** Whether an error means the signed-in person's roles do not allow this. */
export const isForbidden = (error: unknown) => error instanceof ApiError && error.status === 403;

/** A failed load under the screen's heading: "no access" said plainly, anything else with a retry. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (isForbidden(error)) {
    return (
      <div className="panel" role="alert">
        <p>{t('people.forbidden')}</p>
      </div>
    );
  }
  return (
    <div className="panel" role="alert">
      <p>{errorText(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}

/** A query's loading and error states, else its content. */
export function Loaded<T>({
  query,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError || query.data === undefined) return <LoadError error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/**
 * The outcome of the last action: a status (success) or an alert (failure), focused when it
 * changes so the person hears it even when the pressed button went away.
 */
export function Outcome({ message, error, stamp }: { message: string | null; error: unknown; stamp: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (stamp) ref.current?.focus();
  }, [stamp]);
  return (
    <div ref={ref} tabIndex={-1} className="outcome">
      {error !== null && error !== undefined && (
        <div className="form-error" role="alert">
          <p>{errorText(error)}</p>
        </div>
      )}
      {message !== null && (error === null || error === undefined) && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
    </div>
  );
}

/** The screen's title (document and h1). */
export function ScreenTitle({ id, children }: { id: MessageId; children?: ReactNode }) {
  return (
    <div className="people-head">
      <h1>{t(id)}</h1>
      {children}
    </div>
  );
}
