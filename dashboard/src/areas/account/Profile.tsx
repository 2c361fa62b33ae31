import { useEffect, useRef, useState, type RefObject } from 'react';
import { ApiError } from '../../api/errors';
import type { User } from '../../api/types';
import { t } from '../../i18n/t';
import { useChangePassword, useMe, useUpdateProfile } from './api';
import { ErrorPanel, Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import '../../shell/shell.css';
import { Section } from '../../ui/Section';
import { PageHeader } from '../../ui/PageHeader';
import { ProfileIcon, SaveIcon, SecurityIcon } from '../../ui/icons';

/**
 * /account/profile: the person's name and e-mail (a new e-mail needs the current password), and
 * a new password (every other session of theirs ends with it).
 */
export function Profile() {
  useTitle('profile.title');
  const me = useMe();
  return (
    <>
      <Breadcrumbs items={[{ label: t('breadcrumbs.account') }, { label: t('profile.title') }]} />
      <PageHeader title={t('profile.title')} description={t('profile.intro')} />
      {me.isPending ? <Loading /> : me.isError ? <ErrorPanel error={me.error} onRetry={() => void me.refetch()} /> : <DetailsForm user={me.data} />}
      <PasswordForm />
    </>
  );
}

/**
 * The refusals that belong to one field but come without `issues` (401 on the password, 409 on
 * the e-mail): shown on that field, with the form's alert saying which fields need attention.
 */
function knownFieldErrors(error: ApiError | null, passwordField: string): Record<string, string> {
  if (!error) return {};
  if (error.code === 'AUTH_INVALID_CREDENTIALS') return { [passwordField]: t('profile.passwordWrong') };
  if (error.code === 'CONFLICT' && (error.params.field === 'email' || error.params.reason === 'email-taken')) return { email: t('profile.emailTaken') };
  return {};
}

/** The form's outcome: the server's message, or (for field errors only) how many fields need attention. */
function Outcome({ error, fields }: { error: ApiError | null; fields: Record<string, string> }) {
  if (!error) return null;
  const count = Object.keys(fields).length;
  if (error.issues.length === 0 && count > 0)
    return (
      <div className="form-error" role="alert">
        <p>{t('error.formSummary', { count })}</p>
      </div>
    );
  return <FormError error={error} />;
}

/** After a refused submit, the focus goes to the first field that needs attention. */
function useFocusFirstInvalid(form: RefObject<HTMLFormElement | null>, error: ApiError | null) {
  useEffect(() => {
    if (error) form.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
  }, [form, error]);
}

function DetailsForm({ user }: { user: User }) {
  const update = useUpdateProfile();
  const form = useRef<HTMLFormElement>(null);
  const [saved, setSaved] = useState(false);
  const submit = useSubmit(async (values) => {
    setSaved(false);
    const body: { name: string; email: string; password?: string } = { name: values.name ?? '', email: values.email ?? '' };
    if (values.password) body.password = values.password;
    await update.mutateAsync(body);
    setSaved(true);
  });
  const fields = { ...submit.fields, ...knownFieldErrors(submit.error, 'password') };
  useFocusFirstInvalid(form, submit.error);

  return (
    <Section id="profile-details" icon={ProfileIcon} title={t('profile.detailsTitle')} className="prefs-section">
      <form ref={form} onSubmit={(e) => void submit.onSubmit(e)} noValidate>
        {/* Keyed by the stored user: after a save the fields show what the server kept, and the password is cleared. */}
        <div key={`${user.name}\n${user.email}`}>
          <Field label="profile.name" name="name" autoComplete="name" defaultValue={user.name} error={fields.name} />
          <Field label="profile.email" name="email" type="email" autoComplete="email" defaultValue={user.email} error={fields.email} />
          <Field
            label="profile.emailPassword"
            hint="profile.emailPasswordHint"
            name="password"
            type="password"
            autoComplete="current-password"
            error={fields.password}
          />
        </div>
        <Outcome error={submit.error} fields={fields} />
        <button type="submit" disabled={submit.pending}>
          <SaveIcon className="icon" aria-hidden="true" />
          {submit.pending ? t('profile.saving') : t('profile.save')}
        </button>
        <div className="outcome" aria-live="polite">
          {saved && !submit.pending && !submit.error && (
            <p className="notice" role="status">
              {t('profile.saved')}
            </p>
          )}
        </div>
      </form>
    </Section>
  );
}

function PasswordForm() {
  const change = useChangePassword();
  const form = useRef<HTMLFormElement>(null);
  const [changed, setChanged] = useState(false);
  const submit = useSubmit(async (values) => {
    setChanged(false);
    await change.mutateAsync({ currentPassword: values.currentPassword ?? '', newPassword: values.newPassword ?? '' });
    form.current?.reset();
    setChanged(true);
  });
  const fields = { ...submit.fields, ...knownFieldErrors(submit.error, 'currentPassword') };
  useFocusFirstInvalid(form, submit.error);

  return (
    <Section id="profile-password" icon={SecurityIcon} title={t('profile.passwordTitle')} description={t('profile.passwordIntro')} className="prefs-section">
      <form ref={form} onSubmit={(e) => void submit.onSubmit(e)} noValidate>
        <Field label="profile.currentPassword" name="currentPassword" type="password" autoComplete="current-password" error={fields.currentPassword} />
        <Field
          label="profile.newPassword"
          hint="profile.newPasswordHint"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          error={fields.newPassword}
        />
        <Outcome error={submit.error} fields={fields} />
        <button type="submit" disabled={submit.pending}>
          <SaveIcon className="icon" aria-hidden="true" />
          {submit.pending ? t('profile.changingPassword') : t('profile.changePassword')}
        </button>
        <div className="outcome" aria-live="polite">
          {changed && !submit.pending && !submit.error && (
            <p className="notice" role="status">
              {t('profile.passwordChanged')}
            </p>
          )}
        </div>
      </form>
    </Section>
  );
}
