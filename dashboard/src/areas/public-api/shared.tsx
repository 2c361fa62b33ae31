import { Link, useLocation } from 'wouter';
import { t, type MessageId } from '../../i18n/t';
import type { ReactNode } from 'react';
import { PageHeader } from '../../ui/PageHeader';
import { BackLink } from '../../ui/BackLink';
import './public-api.css';

const SECTIONS: ReadonlyArray<{ path: string; label: MessageId }> = [
  { path: '/public-api', label: 'publicApi.section.overview' },
  { path: '/public-api/endpoints', label: 'publicApi.section.endpoints' },
  { path: '/public-api/keys', label: 'publicApi.section.keys' },
  { path: '/public-api/email-templates', label: 'publicApi.section.templates' },
];

/**
 * The head of every screen of the area (DB60): the way back (on an endpoint or a template), the
 * page header, then the area's own navigation between its screens.
 */
export function PublicApiHeader({
  title,
  description,
  actions,
  back,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  back?: { href: string; label: string };
}) {
  return (
    <>
      {back && <BackLink href={back.href}>{back.label}</BackLink>}
      <PageHeader title={title} description={description} actions={actions} />
      <SectionNav />
    </>
  );
}

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

/** Dates in the person's own locale (the browser's), as on the other screens. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));
