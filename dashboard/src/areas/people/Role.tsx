import { useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { isForbidden, LoadError, Outcome } from './common';
import { useCatalog, useDeleteRole, useEditRole, useRoleGrants, useRoles, useSaveGrants, useScopeConnections, type Grant, type Role } from './api';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { grantKey } from './Roles';
import { DataTable } from '../../ui/DataTable';
import { Section } from '../../ui/Section';
import { BackLink } from '../../ui/BackLink';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { AddIcon, DeleteIcon, EditIcon, RolesIcon, SaveIcon } from '../../ui/icons';

/** The permissions the server narrows by a scope (DESIGN D9: data permissions). */
export const SCOPABLE = ['data.read', 'data.write'];

/** One role: rename, delete, its grants, scoped grants. A built-in role is shown read-only. */
export function RolePage() {
  useTitle('people.role.title');
  const { id = '' } = useParams<{ id: string }>();
  const roles = useRoles();
  const grants = useRoleGrants(id);
  if (roles.isPending || grants.isPending) return <Loading />;
  const role = roles.data?.find((r) => r.id === id);
  if (roles.isError || grants.isError || !role) {
    return (
      <>
        <h1>{t('people.role.title')}</h1>
        <LoadError error={roles.error ?? grants.error} onRetry={() => void grants.refetch()} />
        <p>
          <Link href="/roles">{t('people.role.back')}</Link>
        </p>
      </>
    );
  }
  return <RoleView role={role} grants={grants.data.grants} />;
}

function scopeText(scope: Grant['scope'], connectionName: (id: string) => string): string {
  if (!scope) return t('people.role.everywhere');
  return t('people.role.scope', {
    connection: connectionName(scope.connectionId),
    table: scope.table ?? t('people.role.anyTable'),
    columns: scope.columns?.join(', ') ?? t('people.role.anyColumn'),
  });
}

function RoleView({ role, grants }: { role: Role; grants: Grant[] }) {
  const catalog = useCatalog();
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ message: string | null; error: unknown; at: number }>({ message: null, error: null, at: 0 });
  const connections = useScopeConnections();
  const label = (permission: string) => catalog.data?.find((p) => p.name === permission)?.label ?? permission;
  const connectionName = (cid: string) => connections.data?.find((c) => c.id === cid)?.name ?? cid;

  const saveGrants = useSaveGrants({
    onSuccess: () => setOutcome({ message: t('people.role.grantsSaved'), error: null, at: Date.now() }),
    onError: (error) => setOutcome({ message: null, error, at: Date.now() }),
  });

  const remove = useDeleteRole(role.id, {
    onSuccess: () => navigate('/roles'),
    onError: (error) => setOutcome({ message: null, error, at: Date.now() }),
    onSettled: () => setConfirming(false),
  });

  const editRole = useEditRole(role.id);
  const rename = useSubmit(async (values) => {
    const description = (values.description ?? '').trim();
    await editRole.mutateAsync({ name: values.name ?? '', description: description || null });
    setOutcome({ message: t('people.role.renamed'), error: null, at: Date.now() });
  });

  return (
    <>
      <BackLink href="/roles">{t('people.role.back')}</BackLink>
      <PageHeader title={role.name} description={role.description ?? undefined} />
      {role.builtin && <p className="people-info">{t('people.role.builtinNote')}</p>}
      <Outcome message={outcome.message} error={outcome.error} stamp={outcome.at} />

      {!role.builtin && (
        <Section id="role-edit" icon={EditIcon} title={t('people.role.edit')} className="people-section">
          <form noValidate onSubmit={(e) => void rename.onSubmit(e)} key={role.updatedAt}>
            <FormError error={rename.error} />
            <Field label="people.roles.name" name="name" defaultValue={role.name} required error={rename.fields.name} />
            <Field label="people.roles.description" name="description" defaultValue={role.description ?? ''} error={rename.fields.description} />
            <div className="actions">
              <button type="submit" disabled={rename.pending}>
                <SaveIcon className="icon" aria-hidden="true" />
                {t('people.role.save')}
              </button>
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                <DeleteIcon className="icon" aria-hidden="true" />
                {t('people.role.delete')}
              </button>
            </div>
          </form>
        </Section>
      )}

      <Section id="role-grants" icon={RolesIcon} title={t('people.role.grants')} className="people-section">
        {grants.length === 0 ? (
          <EmptyState icon={RolesIcon}>{t('people.role.noGrants')}</EmptyState>
        ) : (
          <DataTable
            caption={t('people.role.grantsCaption', { role: role.name })}
            columns={[
              {
                id: 'permission',
                header: t('people.matrix.permission'),
                rowHeader: true,
                cell: (g: Grant) => (
                  <>
                    {label(g.permission)} <code>{g.permission}</code>
                  </>
                ),
              },
              { id: 'where', header: t('people.role.where'), cell: (g: Grant) => scopeText(g.scope, connectionName) },
              ...(role.builtin
                ? []
                : [
                    {
                      id: 'actions',
                      header: t('people.role.actions'),
                      cell: (g: Grant) => (
                        <button
                          type="button"
                          className="secondary"
                          disabled={saveGrants.isPending}
                          aria-label={t('people.role.removeGrant', { permission: label(g.permission), where: scopeText(g.scope, connectionName) })}
                          onClick={() => saveGrants.mutate({ roleId: role.id, grants: grants.filter((x) => grantKey(x) !== grantKey(g)) })}
                        >
                          {t('people.role.remove')}
                        </button>
                      ),
                    },
                  ]),
            ]}
            rows={grants}
            rowKey={grantKey}
          />
        )}
      </Section>

      {!role.builtin && (
        <ScopedGrant
          grants={grants}
          pending={saveGrants.isPending}
          onAdd={(g) => saveGrants.mutate({ roleId: role.id, grants: [...grants, g] })}
          label={label}
        />
      )}

      {confirming && (
        <ConfirmDialog
          title={t('people.role.deleteTitle', { name: role.name })}
          confirm={t('people.role.deleteConfirm')}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
          cancel={t('people.cancel')}
        >
          <p>{t('people.role.deleteBody')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Adds a grant narrowed to a connection, and optionally a table and some of its columns. */
function ScopedGrant({ grants, pending, onAdd, label }: { grants: Grant[]; pending: boolean; onAdd: (g: Grant) => void; label: (p: string) => string }) {
  const connections = useScopeConnections();
  const formRef = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const f = new FormData(event.currentTarget);
    const connectionId = String(f.get('connectionId') ?? '');
    const table = String(f.get('table') ?? '').trim();
    const columns = String(f.get('columns') ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    if (!connectionId) return setProblem(t('people.scope.needConnection'));
    if (columns.length && !table) return setProblem(t('people.scope.needTable'));
    const grant: Grant = {
      permission: String(f.get('permission')),
      scope: { connectionId, ...(table ? { table } : {}), ...(columns.length ? { columns } : {}) },
    };
    if (grants.some((g) => grantKey(g) === grantKey(grant))) return setProblem(t('people.scope.duplicate'));
    setProblem(null);
    onAdd(grant);
    formRef.current?.reset();
  };
  return (
    <Section id="role-scoped" icon={AddIcon} title={t('people.scope.title')} description={t('people.scope.intro')} className="people-section">
      {connections.isPending ? (
        <Loading />
      ) : connections.isError ? (
        isForbidden(connections.error) ? (
          <p>{t('people.scope.noConnections')}</p>
        ) : (
          <LoadError error={connections.error} />
        )
      ) : connections.data.length === 0 ? (
        <p>{t('people.scope.noConnections')}</p>
      ) : (
        <form ref={formRef} noValidate onSubmit={onSubmit}>
          {problem && (
            <p className="form-error" role="alert">
              {problem}
            </p>
          )}
          <div className="field">
            <label htmlFor="scope-permission">{t('people.matrix.permission')}</label>
            <select className="people-select" id="scope-permission" name="permission">
              {SCOPABLE.map((p) => (
                <option key={p} value={p}>
                  {label(p)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="scope-connection">{t('people.scope.connection')}</label>
            <select className="people-select" id="scope-connection" name="connectionId">
              {connections.data.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <Field label="people.scope.table" name="table" hint="people.scope.tableHint" autoComplete="off" />
          <Field label="people.scope.columns" name="columns" hint="people.scope.columnsHint" autoComplete="off" />
          <button type="submit" disabled={pending}>
            <AddIcon className="icon" aria-hidden="true" />
            {t('people.scope.add')}
          </button>
        </form>
      )}
    </Section>
  );
}
