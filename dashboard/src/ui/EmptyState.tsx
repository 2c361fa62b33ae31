import type { ReactNode } from 'react';
import { EmptyIcon, type IconType } from './icons';

/** Nothing to show yet: a (decorative) icon, what is missing in a sentence, maybe the action that makes the first one. */
export function EmptyState({ icon: Icon = EmptyIcon, children, action }: { icon?: IconType; children: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <Icon className="empty-state-icon" aria-hidden="true" />
      {typeof children === 'string' ? <p>{children}</p> : children}
      {action}
    </div>
  );
}
