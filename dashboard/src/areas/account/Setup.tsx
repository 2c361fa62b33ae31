import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { useCreateSuperAdmin } from './api';
import { AuthCard, Field, FormError, useSubmit } from '../../ui';
import { fieldMessages, type FieldMessages } from '../../ui/field-messages';

/** The setup form's words for the server's issues (the rules of POST /setup: e-mail 3–320, name 1–120, password 8–200). */
const SETUP_WORDS: FieldMessages = {
  email: { too_small: 'setup.emailMissing', invalid_type: 'setup.emailMissing', invalid_format: 'setup.emailInvalid', too_big: 'setup.emailTooLong' },
  name: { too_small: 'setup.nameMissing', invalid_type: 'setup.nameMissing', too_big: 'setup.nameTooLong' },
  password: { too_small: 'setup.passwordTooShort', invalid_type: 'setup.passwordTooShort', too_big: 'setup.passwordTooLong' },
};

/** First visit: create the super admin, who is then signed in. */
export function Setup() {
  const create = useCreateSuperAdmin();
  const form = useSubmit(async ({ email = '', name = '', password = '' }) => {
    await create.mutateAsync({ email, name, password });
    navigate('/', { replace: true });
  });
  const fields = fieldMessages(form.error, SETUP_WORDS);
  return (
    <AuthCard title="setup.title">
      <p>{t('setup.intro')}</p>
      <form onSubmit={form.onSubmit} noValidate>
        <FormError error={form.error} />
        <Field label="field.email" name="email" type="email" autoComplete="email" required error={fields.email} />
        <Field label="field.name" name="name" type="text" autoComplete="name" required error={fields.name} />
        <Field
          label="field.password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="field.newPasswordHint"
          error={fields.password}
        />
        <button type="submit" disabled={form.pending}>
          {form.pending ? t('setup.submitting') : t('setup.submit')}
        </button>
      </form>
    </AuthCard>
  );
}
