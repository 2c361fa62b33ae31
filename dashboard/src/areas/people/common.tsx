import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ApiError } from '../../api/errors';
import type { Role } from './api';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Loading } from '../../ui';
import { useCopy } from '../../ui/useCopy';
import { CopyIcon, RefreshIcon } from '../../ui/icons';
import { PageHeader } from '../../ui/PageHeader';
import './people.css';

export type { CatalogEntry, Grant, Role } from './api';

/** Dates in the person's own locale (the browser's), not the catalogue's. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));

/** A role's name from its id; the id itself when the role is gone. */
export function roleName(roles: Role[] | undefined, id: string): string {
  return roles?.find((r) => r.id === id)?.name ?? id;
}

/** Whether an error means the signed-in person's roles do not allow this. */
export const isForbidden = (error: unknown) => error instanceof ApiError && error.status === 403;

/** A failed load under the screen's heading: "no access" said plainly, anything else with a retry. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (isForbidden(error)) {
    return (
      <div className="panel" role="alert">
        <p>{t('people.forbidden')}</p>
      </div>
    );
  }
  return (
    <div className="panel" role="alert">
      <p>{errorText(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          <RefreshIcon className="icon" aria-hidden="true" />
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}

/** A query's loading and error states, else its content. */
export function Loaded<T>({
  query,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError || query.data === undefined) return <LoadError error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/**
 * The outcome of the last action: a status (success) or an alert (failure), focused when it
 * changes so the person hears it even when the pressed button went away.
 */
export function Outcome({ message, error, stamp }: { message: string | null; error: unknown; stamp: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (stamp) ref.current?.focus();
  }, [stamp]);
  return (
    <div ref={ref} tabIndex={-1} className="outcome">
      {error !== null && error !== undefined && (
        <div className="form-error" role="alert">
          <p>{errorText(error)}</p>
        </div>
      )}
      {message !== null && (error === null || error === undefined) && (
        <p className="notice" role="status">
          {message}
        </p>
      )}
    </div>
  );
}

/** The screen's title (document and h1). */
export function ScreenTitle({ id, description, actions }: { id: MessageId; description?: ReactNode; actions?: ReactNode }) {
  return <PageHeader title={t(id)} description={description} actions={actions} />;
}

/**
 * The set-password link of an invitation no e-mail carried (outgoing mail is not set up, DB47):
 * selectable, with a copy button, for the inviter to pass on by another channel.
 */
export function InviteLink({ link }: { link: string }) {
  const id = useId();
  const { copy, outcome } = useCopy();
  return (
    <div className="people-info" data-testid="invite-link">
      <div className="field">
        <label htmlFor={id}>{t('people.invite.linkLabel')}</label>
        <input id={id} readOnly value={link} onFocus={(e) => e.currentTarget.select()} aria-describedby={`${id}-hint`} />
        <p className="hint" id={`${id}-hint`}>
          {t('people.invite.linkHint')}
        </p>
      </div>
      <button type="button" className="secondary" onClick={() => void copy(link)}>
        <CopyIcon className="icon" aria-hidden="true" />
        {t('people.invite.linkCopy')}
      </button>
      <p role="status" className="notice">
        {outcome}
      </p>
    </div>
  );
}
