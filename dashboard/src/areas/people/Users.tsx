import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { InviteLink, LoadError, Outcome, roleName, ScreenTitle, when } from './common';
import { useInviteUser, useRoles, useRolesByUser, useSystemInfo, useUserList, type Role, type UserStatus } from './api';
import { LoadMore } from '../../ui/LoadMore';
import { DataTable } from '../../ui/DataTable';
import { useCan } from '../account/api';
import { Badge, type BadgeTone } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { Section } from '../../ui/Section';
import { InviteIcon, SearchIcon, SendIcon, UsersIcon } from '../../ui/icons';

type Status = UserStatus;
const STATUSES: Status[] = ['active', 'invited', 'suspended'];
const ANY = '';

/** A user's status as a badge's colour. */
export const STATUS_TONE: Record<Status, BadgeTone> = { active: 'success', invited: 'accent', suspended: 'danger' };

export const statusLabel = (s: Status) => t(`people.status.${s}`);

/** Users: who they are, their status and roles, when they last signed in; inviting someone. */
export function Users() {
  useTitle('nav.users');
  const canInvite = useCan('users.write');
  const [status, setStatus] = useState<Status | ''>('');
  const [q, setQ] = useState('');
  const [roleId, setRoleId] = useState('');
  const list = useUserList(status, q, roleId);
  const roles = useRoles();
  const rolesOf = useRolesByUser(roles.data);

  const onFilter = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setStatus((form.get('status') as Status | '') ?? '');
    setQ(String(form.get('q') ?? '').trim());
    setRoleId(String(form.get('roleId') ?? ''));
  };

  const users = list.data?.pages.flatMap((p) => p.users) ?? [];
  return (
    <>
      <ScreenTitle
        id="nav.users"
        description={t('people.users.intro')}
        actions={
          canInvite && (
            <a href="#invite-title" className="button">
              <InviteIcon className="icon" aria-hidden="true" />
              {t('people.invite.title')}
            </a>
          )
        }
      />
      <form className="people-filters filter-bar" onSubmit={onFilter} role="search" aria-label={t('people.users.filterLabel')}>
        <div className="field">
          <label htmlFor="users-q">{t('people.users.search')}</label>
          <input id="users-q" name="q" type="search" defaultValue={q} />
        </div>
        <div className="field">
          <label htmlFor="users-status">{t('people.users.statusFilter')}</label>
          <select className="people-select" id="users-status" name="status" defaultValue={status}>
            <option value={ANY}>{t('people.users.anyStatus')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </div>
        {roles.data && (
          <div className="field">
            <label htmlFor="users-role">{t('people.users.roleFilter')}</label>
            <select className="people-select" id="users-role" name="roleId" defaultValue={roleId}>
              <option value={ANY}>{t('people.users.anyRole')}</option>
              {roles.data.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <button type="submit" className="secondary">
          <SearchIcon className="icon" aria-hidden="true" />
          {t('people.filter.apply')}
        </button>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} />
      ) : users.length === 0 ? (
        <EmptyState icon={UsersIcon}>{t('people.users.empty')}</EmptyState>
      ) : (
        <DataTable
          stacked
          caption={t('people.users.caption')}
          columns={[
            { id: 'name', header: t('field.name'), rowHeader: true, cell: (u) => <Link href={`/users/${u.id}`}>{u.name}</Link> },
            { id: 'email', header: t('field.email'), cell: (u) => u.email },
            {
              id: 'status',
              header: t('people.users.status'),
              cell: (u) => <Badge tone={STATUS_TONE[u.status]}>{statusLabel(u.status)}</Badge>,
            },
            {
              id: 'roles',
              header: t('people.users.roles'),
              cell: (u) =>
                rolesOf.data
                  ? (rolesOf.data.get(u.id) ?? []).map((id) => roleName(roles.data, id)).join(', ') || t('people.users.noRoles')
                  : t(roles.isError ? 'people.users.rolesHidden' : 'app.loading'),
            },
            { id: 'lastSeen', header: t('people.users.lastSeen'), cell: (u) => (u.lastLoginAt ? when(u.lastLoginAt) : t('people.users.never')) },
          ]}
          rows={users}
          rowKey={(u) => u.id}
          rowAttributes={() => ({ 'data-testid': 'user-row' })}
        />
      )}
      <LoadMore list={list} label={t('people.loadMore')} busyLabel={t('app.loading')} />
      {canInvite && <Invite roles={roles.data} />}
    </>
  );
}

/** Invite: e-mail, name and roles; the server mails the set-password link. */
function Invite({ roles }: { roles: Role[] | undefined }) {
  // The answer to POST /users is the same with or without e-mail: say beforehand when none will go out.
  const info = useSystemInfo();
  const invite = useInviteUser();
  const mailOff = info.data?.smtpConfigured === false;
  const [sent, setSent] = useState<{ email: string; at: number; link: string | null } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const form = useSubmit(async (values) => {
    const roleIds = roles?.filter((r) => values[`role-${r.id}`] === 'on').map((r) => r.id) ?? [];
    const { user, inviteLink } = await invite.mutateAsync({ email: values.email ?? '', name: values.name ?? '', roleIds });
    setSent({ email: user.email, at: Date.now(), link: inviteLink ?? null });
    formRef.current?.reset();
  });
  return (
    <Section id="invite-title" icon={InviteIcon} title={t('people.invite.title')} description={t('people.invite.intro')} className="people-section">
      {mailOff && (
        <p className="people-info">
          {t('people.invite.mailOff')} <Link href="/settings">{t('people.invite.mailSettings')}</Link>
        </p>
      )}
      <Outcome
        message={sent ? t(sent.link ? 'people.invite.linkReady' : mailOff ? 'people.invite.created' : 'people.invite.sent', { email: sent.email }) : null}
        error={null}
        stamp={sent?.at ?? 0}
      />
      {sent?.link && <InviteLink link={sent.link} />}
      <form ref={formRef} noValidate onSubmit={(e) => void form.onSubmit(e)}>
        <FormError error={form.error} />
        <Field label="field.email" name="email" type="email" autoComplete="off" required error={form.fields.email} />
        <Field label="field.name" name="name" autoComplete="off" required error={form.fields.name} />
        <fieldset className="people-checks">
          <legend>{t('people.users.roles')}</legend>
          {roles?.map((r) => (
            <label key={r.id}>
              <input type="checkbox" name={`role-${r.id}`} /> {r.name}
            </label>
          ))}
          {form.fields.roleIds && <p className="field-error">{form.fields.roleIds}</p>}
        </fieldset>
        <button type="submit" disabled={form.pending}>
          <SendIcon className="icon" aria-hidden="true" />
          {form.pending ? t('people.invite.sending') : t('people.invite.submit')}
        </button>
      </form>
    </Section>
  );
}
