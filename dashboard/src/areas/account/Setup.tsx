import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { useCreateSuperAdmin } from './api';
import { AuthCard, Field, FormError, useSubmit } from '../../ui';

/** First visit: create the super admin, who is then signed in. */
export function Setup() {
  const create = useCreateSuperAdmin();
  const form = useSubmit(async ({ email = '', name = '', password = '' }) => {
    await create.mutateAsync({ email, name, password });
    navigate('/', { replace: true });
  });
  return (
    <AuthCard title="setup.title">
      <p>{t('setup.intro')}</p>
      <form onSubmit={form.onSubmit} noValidate>
        <FormError error={form.error} />
        <Field label="field.email" name="email" type="email" autoComplete="email" required error={form.fields.email} />
        <Field label="field.name" name="name" type="text" autoComplete="name" required error={form.fields.name} />
        <Field
          label="field.password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="field.newPasswordHint"
          error={form.fields.password}
        />
        <button type="submit" disabled={form.pending}>
          {form.pending ? t('setup.submitting') : t('setup.submit')}
        </button>
      </form>
    </AuthCard>
  );
}
