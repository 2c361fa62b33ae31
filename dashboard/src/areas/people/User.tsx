import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { useMe } from '../account/api';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { InviteLink, LoadError, Outcome, when } from './common';
import { useEditUser, useRoles, useUser, useUserAction } from './api';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { STATUS_TONE, statusLabel } from './Users';
import { Section } from '../../ui/Section';
import { BackLink } from '../../ui/BackLink';
import { Badge } from '../../ui/Badge';
import { PageHeader } from '../../ui/PageHeader';
import { DeleteIcon, EditIcon, RolesIcon, SaveIcon, SecurityIcon } from '../../ui/icons';

/** One person: details, invitation, suspension, roles, deletion. */
export function UserPage() {
  useTitle('people.user.title');
  const { id = '' } = useParams<{ id: string }>();
  const user = useUser(id);
  const editUser = useEditUser(id);
  const roles = useRoles();
  const me = useMe();
  const [confirming, setConfirming] = useState(false);
  const [edited, setEdited] = useState<{ at: number } | null>(null);
  const edit = useSubmit(async (values) => {
    await editUser.mutateAsync({ name: values.name ?? '', email: values.email ?? '' });
    act.reset();
    setEdited({ at: Date.now() });
  });

  const act = useUserAction(id, {
    onSuccess: (done) => {
      if (done.action === 'delete') navigate('/users');
    },
    onMutate: () => setEdited(null),
    onSettled: () => setConfirming(false),
  });

  if (user.isPending) return <Loading />;
  if (user.isError)
    return (
      <>
        <h1>{t('people.user.title')}</h1>
        <LoadError error={user.error} onRetry={() => void user.refetch()} />
        <p>
          <Link href="/users">{t('people.user.back')}</Link>
        </p>
      </>
    );
  const { user: u, roleIds } = user.data;
  const pending = act.isPending;
  const done = act.isSuccess
    ? act.data.inviteLink
      ? t('people.invite.linkReady', { email: u.email })
      : t(`people.user.done.${act.data.action}`, { name: u.name, email: u.email })
    : edited
      ? t('people.user.done.edit', { name: u.name })
      : null;
  const stamp = edited ? edited.at : act.isIdle || act.isPending ? 0 : act.submittedAt;
  const self = me.data?.id === u.id;

  const onRoles = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    act.mutate({ action: 'roles', roleIds: form.getAll('roleIds').map(String) });
  };

  return (
    <>
      <BackLink href="/users">{t('people.user.back')}</BackLink>
      <PageHeader title={u.name} />
      <Outcome message={done} error={act.isError ? act.error : null} stamp={stamp} />
      {act.isSuccess && act.data.inviteLink && <InviteLink link={act.data.inviteLink} />}
      <dl className="people-details details-list card">
        <dt>{t('field.email')}</dt>
        <dd>{u.email}</dd>
        <dt>{t('people.users.status')}</dt>
        <dd>
          <Badge tone={STATUS_TONE[u.status]}>{statusLabel(u.status)}</Badge>
        </dd>
        <dt>{t('people.users.lastSeen')}</dt>
        <dd>{u.lastLoginAt ? when(u.lastLoginAt) : t('people.users.never')}</dd>
        <dt>{t('people.user.createdAt')}</dt>
        <dd>{when(u.createdAt)}</dd>
        <dt>{t('people.user.twoFactor')}</dt>
        <dd>{u.totpEnabled ? t('people.yes') : t('people.no')}</dd>
      </dl>

      <Section id="user-access" icon={SecurityIcon} title={t('people.user.access')} className="people-section">
        <div className="actions">
          {u.status === 'invited' && (
            <button type="button" disabled={pending} onClick={() => act.mutate({ action: 'resend' })}>
              {t('people.user.resend')}
            </button>
          )}
          {u.status === 'active' && !self && (
            <button type="button" className="secondary" disabled={pending} onClick={() => act.mutate({ action: 'suspend' })}>
              {t('people.user.suspend')}
            </button>
          )}
          {u.status === 'suspended' && (
            <button type="button" disabled={pending} onClick={() => act.mutate({ action: 'reactivate' })}>
              {t('people.user.reactivate')}
            </button>
          )}
          {!self && (
            <button type="button" className="danger" disabled={pending} onClick={() => setConfirming(true)}>
              <DeleteIcon className="icon" aria-hidden="true" />
              {t('people.user.delete')}
            </button>
          )}
        </div>
        {self && <p className="hint">{t('people.user.selfHint')}</p>}
        {u.status === 'suspended' && <p className="hint">{t('people.user.suspendedHint')}</p>}
      </Section>

      <Section id="user-edit" icon={EditIcon} title={t('people.user.edit')} className="people-section">
        {u.status === 'invited' && <p className="hint">{t('people.user.editInvitedHint')}</p>}
        <form noValidate onSubmit={(e) => void edit.onSubmit(e)} key={u.updatedAt}>
          <FormError error={edit.error} />
          <Field label="field.name" name="name" defaultValue={u.name} autoComplete="off" required error={edit.fields.name} />
          <Field label="field.email" name="email" type="email" defaultValue={u.email} autoComplete="off" required error={edit.fields.email} />
          <button type="submit" disabled={edit.pending}>
            <SaveIcon className="icon" aria-hidden="true" />
            {t('people.user.saveDetails')}
          </button>
        </form>
      </Section>

      <Section id="user-roles" icon={RolesIcon} title={t('people.users.roles')} className="people-section">
        {roles.isError ? (
          <LoadError error={roles.error} />
        ) : (
          <form onSubmit={onRoles} key={roleIds.join(',')}>
            <fieldset className="people-checks">
              <legend>{t('people.user.rolesLegend', { name: u.name })}</legend>
              {roles.data?.map((r) => (
                <label key={r.id}>
                  <input type="checkbox" name="roleIds" value={r.id} defaultChecked={roleIds.includes(r.id)} /> {r.name}
                </label>
              ))}
            </fieldset>
            <button type="submit" disabled={pending}>
              <SaveIcon className="icon" aria-hidden="true" />
              {t('people.user.saveRoles')}
            </button>
          </form>
        )}
      </Section>

      {confirming && (
        <ConfirmDialog
          title={t('people.user.deleteTitle', { name: u.name })}
          confirm={t('people.user.deleteConfirm')}
          pending={pending}
          onConfirm={() => act.mutate({ action: 'delete' })}
          onCancel={() => setConfirming(false)}
          cancel={t('people.cancel')}
        >
          <p>{t('people.user.deleteBody', { name: u.name })}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
