import { Link, useLocation } from 'wouter';
import { useBootstrapSession, type NavEntry } from '../../api/bootstrap';
import { appPagePath } from '../add-ons/surfaces';
import { pagePaths, type PageKind } from './api';
import { AddOnsIcon, CustomPageIcon, DetailIcon, FormIcon, ListIcon, PagesIcon, type IconType } from '../../ui/icons';

/** A page's picture when its author chose none, by its kind. */
export const KIND_ICON: Record<PageKind, IconType> = { list: ListIcon, detail: DetailIcon, form: FormIcon, dashboard: PagesIcon, custom: CustomPageIcon };

/** The kind's icon of a page; an app's page (its manifest names no icon) has the add-ons'. */
function EntryIcon({ entry }: { entry: NavEntry }) {
  const Icon = entry.type === 'page' ? KIND_ICON[entry.kind] : AddOnsIcon;
  return <Icon className="icon" aria-hidden="true" />;
}

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
                      {entry.type === 'page' && entry.icon ? (
                        <span aria-hidden="true" className="page-icon">
                          {entry.icon}
                        </span>
                      ) : (
                        <EntryIcon entry={entry} />
                      )}
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
