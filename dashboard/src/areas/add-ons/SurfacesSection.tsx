import { useEffect, useRef, type ReactNode } from 'react';
import { ErrorPanel, Loading } from '../../ui';
import type { useSurfaces } from './api';

/** What a section's last change did; `focus` when that change removed the row that had the focus. */
export type Said = { text: string; focus: boolean } | null;

/**
 * A section of an app's page read from GET /surfaces (its mapped names, its venues): heading and
 * help line, then the list once loaded (or the failure with a retry), what the last change did,
 * and the rest (the forms). After a removal the focused button is gone with its row (and its
 * dialog closed): the section's heading takes the focus.
 */
export function SurfacesSection({
  id,
  title,
  hint,
  surfaces,
  said,
  list,
  children,
}: {
  id: string;
  title: string;
  hint: ReactNode;
  surfaces: ReturnType<typeof useSurfaces>;
  said: Said;
  list: ReactNode;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (said?.focus) heading.current?.focus();
  }, [said]);
  return (
    <section className="addons-section card section" aria-labelledby={id}>
      <h2 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p className="hint">{hint}</p>
      {surfaces.isPending ? (
        <Loading />
      ) : surfaces.isError ? (
        <ErrorPanel error={surfaces.error} onRetry={() => void surfaces.refetch()} />
      ) : (
        <>
          {list}
          {said && (
            <p className="notice" role="status">
              {said.text}
            </p>
          )}
          {children}
        </>
      )}
    </section>
  );
}
