import type { ReactNode } from 'react';

/** What a badge's colour says: done or fine, failed or refused, needs a look, in progress or chosen, or just a label. */
export type BadgeTone = 'success' | 'danger' | 'warning' | 'accent' | 'neutral';

/**
 * A state or a label in a word, as a chip (decision DB60, the `.status` chip of DB55): the same
 * look for a user's status, a job's state, an expired key or "current session" on every screen.
 * `dot` false for a plain label (a kind, a count) rather than a state.
 */
export function Badge({ tone = 'neutral', dot = true, children, testId }: { tone?: BadgeTone; dot?: boolean; children: ReactNode; testId?: string }) {
  return (
    <span className={`status status-${tone}${dot ? '' : ' status-plain'}`} data-testid={testId}>
      {children}
    </span>
  );
}
