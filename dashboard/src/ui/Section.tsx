import { useId, type ReactNode } from 'react';
import type { IconType } from './icons';

/**
 * A part of a screen, as a card unless `plain` (decision DB60): its heading (an `<h2>`, naming the section) with
 * an optional icon, a sentence on what it is for, its own actions on the right, then its content.
 * The screens of the areas share it instead of each styling its own `…-section`.
 */
export function Section({
  title,
  icon: Icon,
  description,
  actions,
  children,
  className,
  id,
  testId,
  plain,
}: {
  title: ReactNode;
  icon?: IconType;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  className?: string;
  /** The heading's id (another element may point at it); one is made otherwise. */
  id?: string;
  testId?: string;
  /** No card around it: for a section whose content is a card already (a table, a list of cards). */
  plain?: boolean;
}) {
  const made = useId();
  const headingId = id ?? made;
  return (
    <section
      className={`${plain ? 'section section-plain' : 'card section'}${className ? ` ${className}` : ''}`}
      aria-labelledby={headingId}
      data-testid={testId}
    >
      <div className="section-header">
        <div className="section-header-text">
          <h2 id={headingId}>
            {Icon && <Icon className="icon section-icon" aria-hidden="true" />}
            {title}
          </h2>
          {description && <p className="section-description">{description}</p>}
        </div>
        {actions && <div className="section-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
