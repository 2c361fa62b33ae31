import { Link } from 'wouter';
import { t, type MessageId } from '../i18n/t';
import { useMe } from '../areas/account/api';
import { useDismissOnboarding, useOnboarding, type Onboarding as Checklist } from '../api/bootstrap';
import { errorText, useTitle } from '../ui';

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
                {step.done ? '✓' : ''}
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

export function Home() {
  useTitle('home.title');
  const me = useMe();
  const onboarding = useOnboarding();
  return (
    <>
      <h1>{me.data ? t('home.greeting', { name: me.data.name }) : t('home.title')}</h1>
      <p>{t('home.intro')}</p>
      {onboarding && !onboarding.dismissed && onboarding.steps.length > 0 && <OnboardingChecklist onboarding={onboarding} />}
    </>
  );
}
