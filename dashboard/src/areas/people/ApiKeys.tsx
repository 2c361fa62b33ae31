import { useRef, useState } from 'react';
import { t } from '../../i18n/t';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { LoadError, Outcome, roleName, ScreenTitle, when } from './common';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, useRoles, type ApiKey, type Role } from './api';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { LoadMore } from '../../ui/LoadMore';
import { SecretOnce } from '../../ui/SecretOnce';

const NONE = '';

/** Role-bound API keys (adm_sk_): list, create (the secret shown once), revoke. */
export function ApiKeys() {
  useTitle('people.keys.title');
  const roles = useRoles();
  const list = useApiKeys();
  const [created, setCreated] = useState<{ key: ApiKey; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [outcome, setOutcome] = useState<{ message: string | null; error: unknown; at: number }>({ message: null, error: null, at: 0 });

  const revoke = useRevokeApiKey({
    onSuccess: (key) => setOutcome({ message: t('people.keys.deleted', { name: key.name }), error: null, at: Date.now() }),
    onError: (error) => setOutcome({ message: null, error, at: Date.now() }),
    onSettled: () => setDeleting(null),
  });

  const keys = list.data?.pages.flatMap((p) => p.apiKeys) ?? [];
  return (
    <>
      <ScreenTitle id="people.keys.title" />
      <p>{t('people.keys.intro')}</p>
      {created && (
        <SecretOnce
          title={t('people.keys.secretTitle', { name: created.key.name })}
          label={t('people.keys.secretLabel', { name: created.key.name })}
          secret={created.secret}
          note={t('people.keys.secretWarning')}
          hide={t('people.keys.secretDone')}
          testId="api-key-secret"
          onDone={() => setCreated(null)}
        />
      )}
      <Outcome message={outcome.message} error={outcome.error} stamp={outcome.at} />
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} />
      ) : keys.length === 0 ? (
        <p>{t('people.keys.empty')}</p>
      ) : (
        <div className="people-table-wrap">
          <table className="people-table">
            <caption>{t('people.keys.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('people.keys.name')}</th>
                <th scope="col">{t('people.keys.role')}</th>
                <th scope="col">{t('people.keys.prefix')}</th>
                <th scope="col">{t('people.keys.createdAt')}</th>
                <th scope="col">{t('people.keys.lastUsedAt')}</th>
                <th scope="col">{t('people.role.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-testid="api-key-row">
                  <th scope="row">{k.name}</th>
                  <td>{roleName(roles.data, k.roleId)}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{when(k.createdAt)}</td>
                  <td>{k.lastUsedAt ? when(k.lastUsedAt) : t('people.keys.neverUsed')}</td>
                  <td>
                    <button type="button" className="danger" aria-label={t('people.keys.deleteLabel', { name: k.name })} onClick={() => setDeleting(k)}>
                      {t('people.keys.delete')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore list={list} label={t('people.loadMore')} />
      <NewKey roles={roles.data ?? []} onCreated={(key, secret) => setCreated({ key, secret })} />
      {deleting !== null && (
        <ConfirmDialog
          title={t('people.keys.deleteTitle', { name: deleting?.name ?? '' })}
          confirm={t('people.keys.deleteConfirm')}
          pending={revoke.isPending}
          onConfirm={() => deleting && revoke.mutate(deleting)}
          onCancel={() => setDeleting(null)}
          cancel={t('people.cancel')}
        >
          <p>{t('people.keys.deleteBody')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function NewKey({ roles, onCreated }: { roles: Role[]; onCreated: (key: ApiKey, secret: string) => void }) {
  const create = useCreateApiKey();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useSubmit(async (values) => {
    const { apiKey, secret } = await create.mutateAsync({ name: values.name ?? '', roleId: values.roleId ?? '' });
    formRef.current?.reset();
    onCreated(apiKey, secret);
  });
  return (
    <section className="people-section" aria-labelledby="keys-new">
      <h2 id="keys-new">{t('people.keys.new')}</h2>
      <p className="hint">{t('people.keys.newIntro')}</p>
      <form ref={formRef} noValidate onSubmit={(e) => void form.onSubmit(e)}>
        <FormError error={form.error} />
        <Field label="people.keys.name" name="name" autoComplete="off" required error={form.fields.name} />
        <div className="field">
          <label htmlFor="key-role">{t('people.keys.role')}</label>
          <select
            className="people-select"
            id="key-role"
            name="roleId"
            aria-invalid={form.fields.roleId ? true : undefined}
            aria-describedby={form.fields.roleId ? 'key-role-error' : undefined}
          >
            <option value={NONE}>{t('people.keys.chooseRole')}</option>
            {roles.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
          {form.fields.roleId && (
            <p className="field-error" id="key-role-error">
              {form.fields.roleId}
            </p>
          )}
        </div>
        <button type="submit" disabled={form.pending}>
          {t('people.keys.create')}
        </button>
      </form>
    </section>
  );
}
