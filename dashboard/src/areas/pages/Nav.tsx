import { Link, useLocation } from 'wouter';
import { t } from '../../i18n/t';
import { usePermissions } from '../account/api';
import { pagePaths, usePagesNav, type PageKind } from './api';

const KIND_ICON: Record<PageKind, string> = { list: '☰', detail: '▤', form: '✎', dashboard: '▦', custom: '◇' };

/** The caller's pages in the navigation, in a "Pages" section after the areas' entries. */
export function PagesNav() {
  // Only those who may read pages ask for them (a 403 would be a failed request on every screen).
  const pages = usePagesNav(usePermissions()?.has('pages.read') ?? false);
  const [location] = useLocation();
  if (!pages.data?.length) return null;
  return (
    <li className="nav-section">
      <span className="nav-section-label" id="nav-section-pages">
        {t('nav.pages')}
      </span>
      <ul aria-labelledby="nav-section-pages">
        {pages.data.map((page) => {
          const path = pagePaths.open(page.slug);
          return (
            <li key={page.id}>
              <Link href={path} aria-current={location === path || location.startsWith(`${path}/`) ? 'page' : undefined}>
                <span aria-hidden="true" className="page-icon">
                  {page.icon ?? KIND_ICON[page.kind]}
                </span>{' '}
                {page.title}
              </Link>
            </li>
          );
        })}
      </ul>
    </li>
  );
}
