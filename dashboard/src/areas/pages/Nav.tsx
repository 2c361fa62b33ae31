import { Link, useLocation } from 'wouter';
import { useBootstrapSession, type NavEntry } from '../../api/bootstrap';
import { appPagePath } from '../add-ons/surfaces';
import { pagePaths, type PageKind } from './api';

const KIND_ICON: Record<PageKind, string> = { list: '☰', detail: '▤', form: '✎', dashboard: '▦', custom: '◇' };
/** An app's page (its manifest names no icon). */
const APP_ICON = '▣';

const entryPath = (entry: NavEntry) => (entry.type === 'page' ? pagePaths.open(entry.slug) : appPagePath(entry.appKey, entry.surface));

/**
 * The one navigation of pages and apps' pages (decisions DB30): GET /bootstrap's
 * `session.nav`, each section a labelled list after the areas' entries, in the order the
 * navigation editor (PUT /pages/nav-order) or an app's placement set. The server lists only
 * what the caller may open; an app's page also needs add-ons.use here, as its screen does.
 */
export function PagesNav() {
  const session = useBootstrapSession();
  const [location] = useLocation();
  if (!session) return null;
  const usesApps = session.permissions.includes('add-ons.use');
  const sections = session.nav.sections
    .map((section) => ({ ...section, entries: section.entries.filter((e) => e.type === 'page' || usesApps) }))
    .filter((section) => section.entries.length > 0);
  return (
    <>
      {sections.map((section) => {
        const labelId = `nav-section-${section.id}`;
        return (
          <li key={section.id} className="nav-section">
            <span className="nav-section-label" id={labelId}>
              {section.title}
            </span>
            <ul aria-labelledby={labelId}>
              {section.entries.map((entry) => {
                const path = entryPath(entry);
                const current = location === path || location.startsWith(`${path}/`);
                return (
                  <li key={path}>
                    <Link href={path} aria-current={current ? 'page' : undefined}>
                      <span aria-hidden="true" className="page-icon">
                        {entry.type === 'page' ? (entry.icon ?? KIND_ICON[entry.kind]) : APP_ICON}
                      </span>{' '}
                      {entry.title}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </li>
        );
      })}
    </>
  );
}
