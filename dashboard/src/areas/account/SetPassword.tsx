import { Link, useSearch } from 'wouter';
import { useResetPassword, useSignedIn, useSignIn } from './api';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { AuthCard, Field, FormError, useSubmit } from '../../ui';

/**
 * The page behind an e-mailed link: `/reset-password?token=…` (forgot password) and
 * `/accept-invite?token=…` (invitation). Both set a password with POST /auth/password/reset;
 * an invitation token also activates the account.
 */
export function SetPassword({ purpose }: { purpose: 'reset' | 'invite' }) {
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const reset = useResetPassword();
  const signIn = useSignIn();
  const signedIn = useSignedIn();
  const invite = purpose === 'invite';
  const form = useSubmit(async ({ email = '', newPassword = '' }) => {
    await reset.mutateAsync({ token, newPassword });
    if (!invite) {
      navigate('/sign-in?reset=1', { replace: true });
      return;
    }
    // The invitation ends signed in: the answer to the reset does not name the account, so the
    // person gave their e-mail with the password. When that sign-in cannot finish here (a typo in
    // the e-mail, a second step), the sign-in form opens with the e-mail filled in and says why.
    const fallback = `/sign-in?invited=1&email=${encodeURIComponent(email.trim())}`;
    try {
      const data = await signIn.mutateAsync({ email: email.trim(), password: newPassword });
      if ('challengeToken' in data) navigate(fallback, { replace: true });
      else {
        signedIn(data.user);
        navigate('/', { replace: true });
      }
    } catch {
      navigate(fallback, { replace: true });
    }
  });
  return (
    <AuthCard title={invite ? 'invite.title' : 'reset.title'}>
      {token === '' ? (
        <>
          <p role="alert">{t('reset.missingToken')}</p>
          <p className="actions">
            <Link href="/forgot-password">{t('reset.askAgain')}</Link>
          </p>
        </>
      ) : (
        <>
          {invite && <p>{t('invite.intro')}</p>}
          <form onSubmit={form.onSubmit} noValidate>
            <FormError error={form.error} />
            {invite && <Field label="field.email" name="email" type="email" autoComplete="username" required hint="invite.emailHint" />}
            <Field
              label="field.newPassword"
              name="newPassword"
              type="password"
              autoComplete="new-password"
              required
              hint="field.newPasswordHint"
              error={form.fields.newPassword}
            />
            <button type="submit" disabled={form.pending}>
              {form.pending ? t('reset.submitting') : t(invite ? 'invite.submit' : 'reset.submit')}
            </button>
          </form>
          {form.error?.code === 'AUTH_RESET_TOKEN_INVALID' && (
            <p className="actions">
              <Link href="/forgot-password">{t('reset.askAgain')}</Link>
            </p>
          )}
        </>
      )}
    </AuthCard>
  );
}

/** `/reset-password?token=…`, the forgot-password link. */
export const ResetPassword = () => <SetPassword purpose="reset" />;
/** `/accept-invite?token=…`, the invitation link. */
export const AcceptInvite = () => <SetPassword purpose="invite" />;
