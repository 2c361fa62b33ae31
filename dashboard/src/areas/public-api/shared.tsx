import { useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api, ok, type Schemas } from '../../api/client';
import { t, type MessageId } from '../../i18n/t';
import './public-api.css';

export type Scope = Schemas['PublicScope'];
export type PublicKey = Schemas['PublicKeyListItem'];

export const PUBLIC_API = ['public-api'] as const;
export const SCOPES = ['public-api', 'scopes'] as const;
export const KEYS = ['public-api', 'keys'] as const;
export const TEMPLATES = ['public-api', 'email-templates'] as const;

const SECTIONS: ReadonlyArray<{ path: string; label: MessageId }> = [
  { path: '/public-api', label: 'publicApi.section.overview' },
  { path: '/public-api/endpoints', label: 'publicApi.section.endpoints' },
  { path: '/public-api/keys', label: 'publicApi.section.keys' },
  { path: '/public-api/email-templates', label: 'publicApi.section.templates' },
];

/** The area's own navigation between its screens; the current one is marked for assistive technology. */
export function SectionNav() {
  const [location] = useLocation();
  const current = SECTIONS.filter((s) => location === s.path || location.startsWith(s.path + '/')).pop();
  return (
    <nav className="pa-sections" aria-label={t('publicApi.sectionsLabel')}>
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.path}>
            <Link href={s.path} aria-current={current?.path === s.path ? 'page' : undefined}>
              {t(s.label)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Every endpoint (all pages of GET /public-scopes): the generated one of each table and the stored ones. */
export function useScopes() {
  return useQuery({
    queryKey: SCOPES,
    queryFn: async () => {
      const all: Scope[] = [];
      let cursor: string | undefined;
      do {
        const page = (await ok(api.GET('/public-scopes', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        all.push(...(page.scopes as Scope[]));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });
}

/** Connection names by id, to say where an endpoint's table is. */
export function useConnectionNames() {
  return useQuery({
    queryKey: ['connections', 'names'],
    queryFn: async () => {
      const names = new Map<string, string>();
      let cursor: string | undefined;
      do {
        const page = (await ok(api.GET('/connections', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        for (const c of page.connections) names.set(c.id, c.name);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return names;
    },
  });
}

/** Installed apps' names by key, to name the app an endpoint or key belongs to (its key when unknown). */
export function useAppNames() {
  return useQuery({
    queryKey: ['add-ons', 'names'],
    queryFn: async () => new Map((await ok(api.GET('/add-ons'))).data.addons.map((a) => [a.key, a.name])),
  });
}

/** Dates in the person's own locale (the browser's), as on the other screens. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));
