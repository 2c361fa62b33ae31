import { t } from '../../i18n/t';
import { Field, Loading } from '../../ui';
import { LoadError, SaveError, Saved, SettingsScreen, useSettingsSubmit } from './common';
import { useSaveSecurity, useSecuritySettings, useSettingsRoles } from './api';

const ROLE_FIELD = 'role:';

/** /settings/security: which roles must use two-step verification. */
export function Security() {
  const query = useSecuritySettings();
  // The roles to tick; without the permission to read them, the ids are typed instead.
  const roles = useSettingsRoles();
  return (
    <SettingsScreen title="settings.security.title">
      <p>{t('settings.security.intro')}</p>
      {query.isPending || roles.isPending ? (
        <Loading />
      ) : query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <SecurityForm required={query.data.requireTwoFactorForRoles} roles={roles.data ?? null} />
      )}
    </SettingsScreen>
  );
}

function SecurityForm({ required, roles }: { required: string[]; roles: Array<{ id: string; name: string }> | null }) {
  const save = useSaveSecurity();
  const form = useSettingsSubmit(async (values) => {
    const ids = roles
      ? Object.keys(values)
          .filter((k) => k.startsWith(ROLE_FIELD))
          .map((k) => k.slice(ROLE_FIELD.length))
      : (values.roles ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
    await save.mutateAsync(ids);
  });
  const error = form.fields.requireTwoFactorForRoles;
  return (
    <form className="settings-form" onSubmit={(e) => void form.onSubmit(e)} noValidate>
      <SaveError error={form.error} />
      {roles ? (
        <fieldset aria-describedby={error ? 'security-roles-error' : undefined}>
          <legend>{t('settings.security.roles')}</legend>
          <div className="checks">
            {roles.map((r) => (
              <label key={r.id}>
                <input type="checkbox" name={`${ROLE_FIELD}${r.id}`} defaultChecked={required.includes(r.id)} />
                {r.name}
              </label>
            ))}
          </div>
          {error && (
            <p className="field-error" id="security-roles-error">
              {error}
            </p>
          )}
        </fieldset>
      ) : (
        <Field label="settings.security.rolesText" name="roles" hint="settings.security.rolesTextHint" defaultValue={required.join(', ')} error={error} />
      )}
      <button type="submit" disabled={form.pending}>
        {form.pending ? t('settings.saving') : t('settings.security.save')}
      </button>
      <Saved show={form.saved} />
    </form>
  );
}
