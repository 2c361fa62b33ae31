import type { ReactNode } from 'react';

/**
 * A screen's header: its title (the screen's one <h1>), a sentence on what it is for, and its
 * main actions on the right (wrapping under the title on a phone).
 */
export function PageHeader({
  title,
  description,
  actions,
  meta,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  /** Badges beside the title (a status, a kind): outside the heading, so its name stays the title (DB60). */
  meta?: ReactNode;
}) {
  return (
    <div className="page-header">
      <div className="page-header-text">
        <h1>{title}</h1>
        {meta && <div className="page-header-meta">{meta}</div>}
        {description && <p className="page-header-description">{description}</p>}
      </div>
      {actions && <div className="page-header-actions">{actions}</div>}
    </div>
  );
}
