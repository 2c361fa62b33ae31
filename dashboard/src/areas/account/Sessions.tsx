import { useEffect, useRef } from 'react';
import { useEndSessions, useMySessions, type Session } from './api';
import { t } from '../../i18n/t';
import { deviceOf } from './user-agent';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { SessionsIcon, SignOutIcon } from '../../ui/icons';

/** Dates in the person's own locale (the browser's), not the catalogue's. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const when = (ms: number) => dateFormat.format(new Date(ms));

/**
 * The signed-in person's live sessions: which one is this device, and signing out any other one
 * (or all of them at once: one DELETE per session, the API has no bulk route).
 */
export function Sessions() {
  useTitle('sessions.title');
  const list = useMySessions();
  const end = useEndSessions();

  // The button that was pressed goes away with its session: the focus goes to the outcome, not to <body>.
  const outcome = useRef<HTMLDivElement>(null);
  const settled = end.isSuccess || end.isError ? end.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);

  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  const sessions = list.data;
  const others = sessions.filter((s) => !s.current);

  return (
    <>
      <PageHeader
        title={t('sessions.title')}
        description={t('sessions.intro')}
        actions={
          others.length > 0 && (
            <button type="button" className="secondary" disabled={end.isPending} onClick={() => end.mutate(others.map((s) => s.id))}>
              <SignOutIcon className="icon" aria-hidden="true" />
              {end.isPending ? t('sessions.ending') : t('sessions.endOthers', { count: others.length })}
            </button>
          )
        }
      />
      <div ref={outcome} tabIndex={-1} className="outcome">
        {end.isError && (
          <div className="form-error" role="alert">
            <p>{errorText(end.error)}</p>
          </div>
        )}
        {end.isSuccess && (
          <p className="notice" role="status">
            {t('sessions.ended', { count: end.variables.length })}
          </p>
        )}
      </div>
      {sessions.length === 0 ? (
        <EmptyState icon={SessionsIcon}>{t('sessions.empty')}</EmptyState>
      ) : (
        <ul className="sessions" aria-label={t('sessions.listLabel')}>
          {sessions.map((s) => (
            <SessionItem key={s.id} session={s} pending={end.isPending} onEnd={() => end.mutate([s.id])} />
          ))}
        </ul>
      )}
      {others.length === 0 && sessions.length > 0 && <p className="hint">{t('sessions.noOthers')}</p>}
    </>
  );
}

/** "Chrome on Linux"; one part when the other is unknown; the raw string when neither is known. */
function deviceName(userAgent: string | null): string {
  if (!userAgent) return t('sessions.unknownDevice');
  const { browser, system } = deviceOf(userAgent);
  if (browser && system) return t('sessions.device', { browser, system });
  return browser ?? (system ? t('sessions.deviceSystemOnly', { system }) : userAgent);
}

function SessionItem({ session, pending, onEnd }: { session: Session; pending: boolean; onEnd: () => void }) {
  const device = deviceName(session.userAgent);
  return (
    <li className="session" data-testid="session">
      <p className="session-device">
        {/* The raw User-Agent on hover: what a person checks when the short name is not enough. */}
        <strong title={session.userAgent ?? undefined}>{device}</strong>
        {session.current && (
          <>
            {' '}
            <Badge tone="success">{t('sessions.current')}</Badge>
          </>
        )}
      </p>
      <dl>
        <dt>{t('sessions.ip')}</dt>
        <dd>{session.ip ?? t('sessions.unknownIp')}</dd>
        <dt>{t('sessions.createdAt')}</dt>
        <dd>{when(session.createdAt)}</dd>
        <dt>{t('sessions.lastSeenAt')}</dt>
        <dd>{when(session.lastSeenAt)}</dd>
        <dt>{t('sessions.expiresAt')}</dt>
        <dd>{when(session.expiresAt)}</dd>
      </dl>
      {!session.current && (
        <button
          type="button"
          className="secondary"
          disabled={pending}
          onClick={onEnd}
          aria-label={t('sessions.endOneLabel', { device, when: when(session.lastSeenAt) })}
        >
          <SignOutIcon className="icon" aria-hidden="true" />
          {t('sessions.endOne')}
        </button>
      )}
    </li>
  );
}
