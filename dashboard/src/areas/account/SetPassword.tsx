import { Link, useSearch } from 'wouter';
import { useResetPassword } from './api';
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
  const form = useSubmit(async ({ newPassword = '' }) => {
    await reset.mutateAsync({ token, newPassword });
    navigate('/sign-in?reset=1', { replace: true });
  });
  const invite = purpose === 'invite';
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
