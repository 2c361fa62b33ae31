import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { BackIcon } from './icons';

/** The way back to the list a screen belongs to, above its title: small, muted, with an arrow (decision DB60). */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p className="back-link-line">
      <Link href={href} className="back-link">
        <BackIcon className="icon" aria-hidden="true" />
        {children}
      </Link>
    </p>
  );
}
