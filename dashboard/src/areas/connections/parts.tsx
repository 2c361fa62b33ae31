import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { t, type MessageId } from '../../i18n/t';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { DIALECT_LABELS, paths, REASON_LABELS, reasonOf, useConnection, when, type Connection } from './api';
import './connections.css';
import { useCan } from '../account/api';

/** The sections; those that only change the connection are shown to holders of connections.write. */
const SECTIONS: ReadonlyArray<{ label: MessageId; path: (id: string) => string; writes?: true }> = [
  { label: 'connections.tab.overview', path: paths.one },
  { label: 'connections.tab.schema', path: paths.schema },
  { label: 'connections.tab.snapshots', path: paths.snapshots },
  { label: 'connections.tab.overrides', path: paths.overrides },
  { label: 'connections.tab.generate', path: paths.generate, writes: true },
  { label: 'connections.tab.edit', path: paths.edit, writes: true },
  { label: 'connections.tab.delete', path: paths.remove, writes: true },
];

/** The AI assistant's Ask screen on this connection (the llm area), for holders of llm.use. */
const askPath = (id: string) => `/ask?connection=${encodeURIComponent(id)}`;

/** The sections of one connection, as links (each has its own address). */
function Sections({ id }: { id: string }) {
  const [location] = useLocation();
  const canWrite = useCan('connections.write');
  const canAsk = useCan('llm.use');
  return (
    <nav aria-label={t('connections.sections')} className="conn-sections">
      <ul>
        {SECTIONS.filter((s) => canWrite || !s.writes).map((s) => {
          const href = s.path(id);
          return (
            <li key={s.label}>
              <Link href={href} aria-current={location === href ? 'page' : undefined}>
                {t(s.label)}
              </Link>
            </li>
          );
        })}
        {canAsk && (
          <li>
            <Link href={askPath(id)}>{t('connections.tab.ask')}</Link>
          </li>
        )}
      </ul>
    </nav>
  );
}

/**
 * The frame of every screen of one connection: trail, the section's heading (the one h1),
 * the sections' links, then the screen. Loads the connection once for all of them.
 */
export function ConnectionScreen({
  id,
  section,
  paused = false,
  children,
}: {
  id: string;
  section: MessageId;
  /** Stop refreshing the connection (it is being deleted). */
  paused?: boolean;
  children: (connection: Connection) => ReactNode;
}) {
  const connection = useConnection(id, !paused);
  const name = connection.data?.name;
  useTitle(section);
  if (connection.isPending) return <Loading />;
  if (connection.isError)
    return (
      <>
        <Breadcrumbs items={[{ label: t('connections.title'), href: paths.list }, { label: id }]} />
        <h1>{t('connections.notFoundTitle')}</h1>
        <ErrorPanel error={connection.error} onRetry={() => void connection.refetch()} />
      </>
    );
  const c = connection.data;
  const overview = section === 'connections.tab.overview';
  return (
    <>
      <Breadcrumbs
        items={[
          { label: t('connections.title'), href: paths.list },
          ...(overview ? [{ label: c.name }] : [{ label: c.name, href: paths.one(id) }, { label: t(section) }]),
        ]}
      />
      <h1>{overview ? name : t('connections.sectionTitle', { section: t(section), name: c.name })}</h1>
      <p className="conn-meta">
        <span>{t(DIALECT_LABELS[c.dialect])}</span>
        {c.readOnly && <span className="conn-tag">{t('connections.readOnly')}</span>}
        <Health connection={c} />
      </p>
      <Sections id={id} />
      {children(c)}
    </>
  );
}

/** The last test's outcome: the connection's health as the API knows it. */
export function Health({ connection }: { connection: Connection }) {
  const last = connection.lastTest;
  if (!last) return <span className="conn-health unknown">{t('connections.health.never')}</span>;
  if (last.ok) return <span className="conn-health ok">{t('connections.health.ok', { latency: Math.round(last.latencyMs ?? 0), when: when(last.at) })}</span>;
  return (
    <span className="conn-health failed">{t('connections.health.failed', { reason: t(REASON_LABELS[last.reason ?? 'unknown']), when: when(last.at) })}</span>
  );
}

/** A failed test or save: the server's message, and its reason in our words. */
export function ConnectionFailure({ error }: { error: unknown }) {
  const reason = reasonOf(error);
  return (
    <div className="form-error" role="alert">
      <p>{errorText(error)}</p>
      {reason && <p>{t('connections.failureReason', { code: reason })}</p>}
    </div>
  );
}
