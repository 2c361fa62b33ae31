import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { t } from '../../i18n/t';
import { Field, Loading } from '../../ui';
import { LoadError, SaveError, Saved, SettingsScreen, useSettingsSubmit } from './common';

export const SECURITY = ['settings', 'security'] as const;
const ROLES = ['settings', 'roles'] as const;
const ROLE_FIELD = 'role:';

/** /settings/security: which roles must use two-step verification. */
export function Security() {
  const query = useQuery({ queryKey: SECURITY, queryFn: async () => (await ok(api.GET('/settings/security'))).data.security });
  // The roles to tick; without the permission to read them, the ids are typed instead.
  const roles = useQuery({ queryKey: ROLES, queryFn: async () => (await ok(api.GET('/roles', { params: { query: { limit: 500 } } }))).data.roles });
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
  const queryClient = useQueryClient();
  const form = useSettingsSubmit(async (values) => {
    const ids = roles
      ? Object.keys(values)
          .filter((k) => k.startsWith(ROLE_FIELD))
          .map((k) => k.slice(ROLE_FIELD.length))
      : (values.roles ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
    const saved = (await ok(api.PUT('/settings/security', { body: { requireTwoFactorForRoles: ids } }))).data.security;
    queryClient.setQueryData(SECURITY, saved);
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
