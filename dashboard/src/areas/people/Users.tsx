import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, ok, type User } from '../../api/client';
import { t } from '../../i18n/t';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { LoadError, Outcome, PEOPLE_KEYS, roleName, ScreenTitle, useRoles, when, type Role } from './common';
import { LoadMore } from '../../ui/LoadMore';

type Status = User['status'];
const STATUSES: Status[] = ['active', 'invited', 'suspended'];
const ANY = '';

export const statusLabel = (s: Status) => t(`people.status.${s}`);

/** Which roles each user holds: one list per role (a few), not one call per user. */
function useRolesByUser(roles: Role[] | undefined) {
  return useQuery({
    queryKey: [...PEOPLE_KEYS.users, 'roles-of', roles?.map((r) => r.id).join(',') ?? ''],
    enabled: roles !== undefined,
    queryFn: async () => {
      const map = new Map<string, string[]>();
      for (const role of roles ?? []) {
        let cursor: string | undefined;
        for (let i = 0; i < 100; i++) {
          const d = (await ok(api.GET('/users', { params: { query: { roleId: role.id, limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
          for (const u of d.users) map.set(u.id, [...(map.get(u.id) ?? []), role.id]);
          if (!d.nextCursor) break;
          cursor = d.nextCursor;
        }
      }
      return map;
    },
  });
}

/** Users: who they are, their status and roles, when they last signed in; inviting someone. */
export function Users() {
  useTitle('nav.users');
  const [status, setStatus] = useState<Status | ''>('');
  const [q, setQ] = useState('');
  const [roleId, setRoleId] = useState('');
  const list = useInfiniteQuery({
    queryKey: [...PEOPLE_KEYS.users, 'list', status, q, roleId],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await ok(
          api.GET('/users', {
            params: {
              query: {
                limit: 50,
                ...(status ? { status } : {}),
                ...(q ? { q } : {}),
                ...(roleId ? { roleId } : {}),
                ...(pageParam ? { cursor: pageParam } : {}),
              },
            },
          }),
        )
      ).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
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
      <ScreenTitle id="nav.users" />
      <p>{t('people.users.intro')}</p>
      <form className="people-filters" onSubmit={onFilter} role="search" aria-label={t('people.users.filterLabel')}>
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
        <button type="submit">{t('people.filter.apply')}</button>
      </form>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <LoadError error={list.error} onRetry={() => void list.refetch()} />
      ) : users.length === 0 ? (
        <p>{t('people.users.empty')}</p>
      ) : (
        <div className="people-table-wrap">
          <table className="people-table">
            <caption>{t('people.users.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('field.name')}</th>
                <th scope="col">{t('field.email')}</th>
                <th scope="col">{t('people.users.status')}</th>
                <th scope="col">{t('people.users.roles')}</th>
                <th scope="col">{t('people.users.lastSeen')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} data-testid="user-row">
                  <th scope="row">
                    <Link href={`/users/${u.id}`}>{u.name}</Link>
                  </th>
                  <td>{u.email}</td>
                  <td>
                    <span className={`people-status people-status-${u.status}`}>{statusLabel(u.status)}</span>
                  </td>
                  <td>
                    {rolesOf.data
                      ? (rolesOf.data.get(u.id) ?? []).map((id) => roleName(roles.data, id)).join(', ') || t('people.users.noRoles')
                      : t(roles.isError ? 'people.users.rolesHidden' : 'app.loading')}
                  </td>
                  <td>{u.lastLoginAt ? when(u.lastLoginAt) : t('people.users.never')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore list={list} label={t('people.loadMore')} busyLabel={t('app.loading')} />
      <Invite roles={roles.data} />
    </>
  );
}

/** Invite: e-mail, name and roles; the server mails the set-password link. */
function Invite({ roles }: { roles: Role[] | undefined }) {
  const queryClient = useQueryClient();
  // The answer to POST /users is the same with or without e-mail: say beforehand when none will go out.
  const info = useQuery({ queryKey: ['system-info'], queryFn: async () => ok(api.GET('/system/info')) });
  const mailOff = info.data?.smtpConfigured === false;
  const [sent, setSent] = useState<{ email: string; at: number } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const form = useSubmit(async (values) => {
    const roleIds = roles?.filter((r) => values[`role-${r.id}`] === 'on').map((r) => r.id) ?? [];
    const user = (await ok(api.POST('/users', { body: { email: values.email ?? '', name: values.name ?? '', roleIds } }))).data.user;
    setSent({ email: user.email, at: Date.now() });
    formRef.current?.reset();
    await queryClient.invalidateQueries({ queryKey: PEOPLE_KEYS.users });
  });
  return (
    <section className="people-section" aria-labelledby="invite-title">
      <h2 id="invite-title">{t('people.invite.title')}</h2>
      <p>{t('people.invite.intro')}</p>
      {mailOff && (
        <p className="people-info">
          {t('people.invite.mailOff')} <Link href="/settings">{t('people.invite.mailSettings')}</Link>
        </p>
      )}
      <Outcome message={sent ? t(mailOff ? 'people.invite.created' : 'people.invite.sent', { email: sent.email }) : null} error={null} stamp={sent?.at ?? 0} />
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
          {form.pending ? t('people.invite.sending') : t('people.invite.submit')}
        </button>
      </form>
    </section>
  );
}
