import { Link } from 'wouter';
import { t } from '../i18n/t';

export interface Crumb {
  /** Already translated: `t('nav.settings')`. */
  label: string;
  /** Omitted for the current screen (the last crumb). */
  href?: string;
}

/**
 * Where a screen sits, rendered at its top above the `h1`: a labelled navigation landmark
 * with an ordered list; the last crumb is the current page. Home comes first on its own.
 */
export function Breadcrumbs({ items }: { items: readonly Crumb[] }) {
  const all: Crumb[] = [{ label: t('nav.home'), href: '/' }, ...items];
  return (
    <nav className="breadcrumbs" aria-label={t('breadcrumbs.label')}>
      <ol>
        {all.map((crumb, i) => {
          const last = i === all.length - 1;
          return (
            <li key={`${i}-${crumb.label}`}>
              {crumb.href && !last ? <Link href={crumb.href}>{crumb.label}</Link> : <span aria-current={last ? 'page' : undefined}>{crumb.label}</span>}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
