import { Link, useLocation } from 'wouter';
import { useSurfaces } from './api';
import { appPagePath, placedBySection, sectionLabel, useUsesApps } from './surfaces';

/**
 * The apps' pages an operator placed in the navigation (PUT /surfaces/{appKey}/placement), one
 * list item per section after the areas' entries. Each opens the page in a sandboxed frame.
 */
export function PlacedPagesNav() {
  const usesApps = useUsesApps();
  const surfaces = useSurfaces(usesApps);
  const [location] = useLocation();
  if (!usesApps || !surfaces.data) return null;
  return (
    <>
      {placedBySection(surfaces.data).map(({ section, pages }) => (
        <li key={section} className="nav-section">
          <span className="nav-section-label" id={`nav-section-${section}`}>
            {sectionLabel(section)}
          </span>
          <ul aria-labelledby={`nav-section-${section}`}>
            {pages.map((page) => {
              const path = appPagePath(page.appKey, page.name);
              return (
                <li key={path}>
                  <Link href={path} aria-current={location === path ? 'page' : undefined}>
                    {page.title}
                  </Link>
                </li>
              );
            })}
          </ul>
        </li>
      ))}
    </>
  );
}
