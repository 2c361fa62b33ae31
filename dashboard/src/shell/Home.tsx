import { useMemo } from 'react';
import { Link } from 'wouter';
import { t, type MessageId } from '../i18n/t';
import { useMe, usePermissions } from '../areas/account/api';
import { useNavConnections } from '../areas/connections/api';
import { usePagesNav } from '../areas/pages/api';
import { useJobList } from '../areas/transfer/api';
import { useDismissOnboarding, useOnboarding, type Onboarding as Checklist } from '../api/bootstrap';
import { ErrorPanel, errorText, Loading, useTitle } from '../ui';
import { PageHeader } from '../ui/PageHeader';
import { AddIcon, CheckIcon, ConnectionsIcon, JobsIcon, RecentIcon, type IconType } from '../ui/icons';
import { readRecent, RECENT_LIMIT } from './recent';

type StepId = Checklist['steps'][number]['id'];

/** Each step's name and what doing it brings (decisions BO3 for the steps, DB30 for the screen). */
const STEP_TEXT: Record<StepId, { title: MessageId; body: MessageId }> = {
  'connect-database': { title: 'home.step.connect-database', body: 'home.step.connect-database.body' },
  'create-page': { title: 'home.step.create-page', body: 'home.step.create-page.body' },
  'invite-colleague': { title: 'home.step.invite-colleague', body: 'home.step.invite-colleague.body' },
  'enable-two-factor': { title: 'home.step.enable-two-factor', body: 'home.step.enable-two-factor.body' },
  'open-public-api': { title: 'home.step.open-public-api', body: 'home.step.open-public-api.body' },
  'install-add-on': { title: 'home.step.install-add-on', body: 'home.step.install-add-on.body' },
  'set-up-email': { title: 'home.step.set-up-email', body: 'home.step.set-up-email.body' },
};

/**
 * The onboarding checklist until the person dismisses it: the steps they may do, each done or
 * not as the instance is now (GET /bootstrap's `session.onboarding`), each a link to where it is done.
 */
function OnboardingChecklist({ onboarding }: { onboarding: Checklist }) {
  const dismiss = useDismissOnboarding();
  const { completed, total } = onboarding;
  return (
    <section className="card onboarding" aria-labelledby="onboarding-title">
      <div className="onboarding-head">
        <h2 id="onboarding-title">{t('home.onboarding.title')}</h2>
        <p className="onboarding-count">{t('home.onboarding.completed', { completed: String(completed), total: String(total) })}</p>
      </div>
      <progress className="onboarding-progress" max={total} value={completed} aria-label={t('home.onboarding.progress')} />
      <ol className="onboarding-steps">
        {onboarding.steps.map((step) => {
          const text = STEP_TEXT[step.id];
          return (
            <li key={step.id} className={step.done ? 'done' : undefined}>
              <span className="onboarding-mark" aria-hidden="true">
                {step.done && <CheckIcon className="icon" />}
              </span>
              <div>
                <Link href={step.href}>{t(text.title)}</Link>
                <span className="visually-hidden"> — {t(step.done ? 'home.step.done' : 'home.step.todo')}</span>
                <p className="hint">{t(text.body)}</p>
              </div>
            </li>
          );
        })}
      </ol>
      {dismiss.isError && (
        <p className="field-error" role="alert">
          {errorText(dismiss.error)}
        </p>
      )}
      <button type="button" className="secondary" disabled={dismiss.isPending} onClick={() => dismiss.mutate()}>
        {t('home.onboarding.dismiss')}
      </button>
    </section>
  );
}

const when = (at: number | string) => new Date(at).toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The first connections with how their last test went (the list screen has the rest). */
function ConnectionsCard() {
  const list = useNavConnections(RECENT_LIMIT, true);
  return (
    <section className="card home-card" aria-labelledby="home-connections">
      <div className="home-card-head">
        <h2 id="home-connections">
          <ConnectionsIcon className="icon" aria-hidden="true" />
          {t('home.connections.title')}
        </h2>
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.connections.length === 0 ? (
        <CardEmpty icon={ConnectionsIcon}>{t('home.connections.none')}</CardEmpty>
      ) : (
        <ul className="home-list">
          {list.data.connections.map((c) => {
            const health = c.lastTest === null ? 'untested' : c.lastTest.ok ? 'ok' : 'failing';
            return (
              <li key={c.id}>
                <Link href={`/connections/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                <span className={`status status-${health === 'ok' ? 'success' : health === 'failing' ? 'danger' : 'neutral'}`}>
                  {t(health === 'ok' ? 'home.connections.ok' : health === 'failing' ? 'home.connections.failing' : 'home.connections.untested', {
                    at: c.lastTest ? when(c.lastTest.at) : '',
                  })}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <p className="home-more">
        <Link href="/connections">{t('home.connections.all')}</Link>
      </p>
    </section>
  );
}

/** The tables and pages opened lately in this browser (shell/recent.ts), named as the navigation names them. */
function RecentCard({ userId }: { userId: string }) {
  const pages = usePagesNav();
  const recent = useMemo(() => readRecent(userId), [userId]);
  const titles = new Map((pages.data ?? []).map((p) => [p.slug, p.title]));
  const shown = recent.filter((v) => v.kind === 'table' || titles.has(v.slug ?? '')).slice(0, RECENT_LIMIT);
  const yourPages = (pages.data ?? []).slice(0, RECENT_LIMIT);
  return (
    <section className="card home-card" aria-labelledby="home-recent">
      <div className="home-card-head">
        <h2 id="home-recent">
          <RecentIcon className="icon" aria-hidden="true" />
          {t('home.recent.title')}
        </h2>
      </div>
      {shown.length > 0 ? (
        <ul className="home-list">
          {shown.map((v) => (
            <li key={v.path}>
              <Link href={v.path}>{v.kind === 'table' ? v.table : titles.get(v.slug ?? '')}</Link>
              <span className="hint">{t(v.kind === 'table' ? 'home.recent.table' : 'home.recent.page')}</span>
            </li>
          ))}
        </ul>
      ) : yourPages.length > 0 ? (
        <ul className="home-list">
          {yourPages.map((p) => (
            <li key={p.id}>
              <Link href={`/p/${encodeURIComponent(p.slug)}`}>{p.title}</Link>
              <span className="hint">{t('home.recent.page')}</span>
            </li>
          ))}
        </ul>
      ) : (
        <CardEmpty icon={RecentIcon}>{t('home.recent.none')}</CardEmpty>
      )}
    </section>
  );
}

const JOB_STATE: Record<string, MessageId> = {
  queued: 'home.jobs.queued',
  running: 'home.jobs.running',
  succeeded: 'home.jobs.succeeded',
  failed: 'home.jobs.failed',
  cancelled: 'home.jobs.cancelled',
};

const JOB_TONE: Record<string, string> = { running: 'accent', succeeded: 'success', failed: 'danger', cancelled: 'neutral', queued: 'neutral' };

/** A card's "nothing yet": its icon, greyed, above the sentence. */
function CardEmpty({ icon: Icon, children }: { icon: IconType; children: string }) {
  return (
    <div className="home-empty">
      <Icon className="icon" aria-hidden="true" />
      <p>{children}</p>
    </div>
  );
}

/** The latest jobs (imports, exports, reports…) and how they stand. */
function JobsCard() {
  const list = useJobList(5, '', '');
  const jobs = list.data?.pages[0]?.jobs ?? [];
  return (
    <section className="card home-card" aria-labelledby="home-jobs">
      <div className="home-card-head">
        <h2 id="home-jobs">
          <JobsIcon className="icon" aria-hidden="true" />
          {t('home.jobs.title')}
        </h2>
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : jobs.length === 0 ? (
        <CardEmpty icon={JobsIcon}>{t('home.jobs.none')}</CardEmpty>
      ) : (
        <ul className="home-list">
          {jobs.map((job) => (
            <li key={job.id}>
              <Link href={`/jobs/${encodeURIComponent(job.id)}`}>
                {t('home.jobs.kind', { kind: job.kind === 'import.run' ? 'import' : job.kind === 'export.run' ? 'export' : 'other', raw: job.kind })}
              </Link>
              <span className="home-job-state">
                <span className={`status status-${JOB_TONE[job.state] ?? 'neutral'}`}>{t(JOB_STATE[job.state] ?? 'home.jobs.queued')}</span>
                <span className="hint">{when(job.createdAt)}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className="home-more">
        <Link href="/jobs">{t('home.jobs.all')}</Link>
      </p>
    </section>
  );
}

export function Home() {
  useTitle('home.title');
  const me = useMe();
  const permissions = usePermissions();
  const onboarding = useOnboarding();
  return (
    <>
      <PageHeader
        title={me.data ? t('home.greeting', { name: me.data.name }) : t('home.title')}
        description={t('home.intro')}
        actions={
          permissions?.has('connections.write') && (
            <Link href="/connections/new" className="button">
              <AddIcon className="icon" aria-hidden="true" />
              {t('home.connections.add')}
            </Link>
          )
        }
      />
      {onboarding && !onboarding.dismissed && onboarding.steps.length > 0 && <OnboardingChecklist onboarding={onboarding} />}
      <div className="home-cards">
        {permissions?.has('connections.read') && <ConnectionsCard />}
        {me.data && <RecentCard userId={me.data.id} />}
        {permissions?.has('jobs.read') && <JobsCard />}
      </div>
    </>
  );
}
