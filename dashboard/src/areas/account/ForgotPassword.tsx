import { useState } from 'react';
import { Link } from 'wouter';
import { useForgotPassword } from './api';
import { t } from '../../i18n/t';
import { AuthCard, Field, FormError, useSubmit } from '../../ui';

/** Asks for the reset link; the server answers the same whether or not the address has an account. */
export function ForgotPassword() {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const forgot = useForgotPassword();
  const form = useSubmit(async ({ email = '' }) => {
    await forgot.mutateAsync(email);
    setSentTo(email);
  });
  return (
    <AuthCard title="forgot.title">
      {sentTo === null ? (
        <>
          <p>{t('forgot.intro')}</p>
          <form onSubmit={form.onSubmit} noValidate>
            <FormError error={form.error} />
            <Field label="field.email" name="email" type="email" autoComplete="email" required error={form.fields.email} />
            <button type="submit" disabled={form.pending}>
              {form.pending ? t('forgot.submitting') : t('forgot.submit')}
            </button>
          </form>
        </>
      ) : (
        <p className="notice" role="status">
          {t('forgot.sent', { email: sentTo })}
        </p>
      )}
      <p className="actions">
        <Link href="/sign-in">{t('forgot.back')}</Link>
      </p>
    </AuthCard>
  );
}
