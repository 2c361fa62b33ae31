import { useRef, useState } from 'react';
import { t } from '../../i18n/t';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { LoadError, Outcome, roleName, ScreenTitle, when } from './common';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, useRoles, type ApiKey, type Role } from './api';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { LoadMore } from '../../ui/LoadMore';
import { DataTable } from '../../ui/DataTable';
import { SecretOnce } from '../../ui/SecretOnce';
import { useCan } from '../account/api';
import { EmptyState } from '../../ui/EmptyState';
import { Section } from '../../ui/Section';
import { AddIcon, ApiKeysIcon, DeleteIcon } from '../../ui/icons';

const NONE = '';

/** Role-bound API keys (adm_sk_): list, create (the secret shown once), revoke. */
export function ApiKeys() {
  useTitle('people.keys.title');
  const canCreate = useCan('api-keys.write');
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
      <ScreenTitle
        id="people.keys.title"
        description={t('people.keys.intro')}
        actions={
          canCreate && (
            <a href="#keys-new" className="button">
              <AddIcon className="icon" aria-hidden="true" />
              {t('people.keys.new')}
            </a>
          )
        }
      />
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
        <EmptyState icon={ApiKeysIcon}>{t('people.keys.empty')}</EmptyState>
      ) : (
        <DataTable
          stacked
          caption={t('people.keys.caption')}
          columns={[
            { id: 'name', header: t('people.keys.name'), rowHeader: true, cell: (k) => k.name },
            { id: 'role', header: t('people.keys.role'), cell: (k) => roleName(roles.data, k.roleId) },
            { id: 'prefix', header: t('people.keys.prefix'), cell: (k) => <code>{k.prefix}…</code> },
            { id: 'createdAt', header: t('people.keys.createdAt'), cell: (k) => when(k.createdAt) },
            { id: 'lastUsedAt', header: t('people.keys.lastUsedAt'), cell: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : t('people.keys.neverUsed')) },
            {
              id: 'actions',
              header: t('people.role.actions'),
              cell: (k) => (
                <button type="button" className="danger" aria-label={t('people.keys.deleteLabel', { name: k.name })} onClick={() => setDeleting(k)}>
                  <DeleteIcon className="icon" aria-hidden="true" />
                  {t('people.keys.delete')}
                </button>
              ),
            },
          ]}
          rows={keys}
          rowKey={(k) => k.id}
          rowAttributes={() => ({ 'data-testid': 'api-key-row' })}
        />
      )}
      <LoadMore list={list} label={t('people.loadMore')} />
      {canCreate && <NewKey roles={roles.data ?? []} onCreated={(key, secret) => setCreated({ key, secret })} />}
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
    <Section id="keys-new" icon={ApiKeysIcon} title={t('people.keys.new')} description={t('people.keys.newIntro')} className="people-section">
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
          <AddIcon className="icon" aria-hidden="true" />
          {t('people.keys.create')}
        </button>
      </form>
    </Section>
  );
}
