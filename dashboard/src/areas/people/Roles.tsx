import { useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { LoadError, Outcome, ScreenTitle } from './common';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { useCatalog, useCreateRole, useGrants, useRoles, useSaveGrants, type CatalogEntry, type Grant, type Role } from './api';
import { AddIcon, RolesIcon } from '../../ui/icons';
import { Badge } from '../../ui/Badge';
import { Section } from '../../ui/Section';

/** A grant's identity (permission and scope), to compare sets of grants. */
export const grantKey = (g: { permission: string; scope?: Grant['scope'] }) => JSON.stringify([g.permission, g.scope ?? null]);

/** Roles: the list, a new role, and the permission matrix (permissions × roles). */
export function Roles() {
  useTitle('people.roles.title');
  const roles = useRoles();
  const catalog = useCatalog();
  return (
    <>
      <ScreenTitle
        id="people.roles.title"
        description={t('people.roles.intro')}
        actions={
          <a href="#roles-new" className="button">
            <AddIcon className="icon" aria-hidden="true" />
            {t('people.roles.new')}
          </a>
        }
      />
      {roles.isPending ? (
        <Loading />
      ) : roles.isError ? (
        <LoadError error={roles.error} onRetry={() => void roles.refetch()} />
      ) : (
        <>
          <RoleList roles={roles.data} />
          <NewRole />
          {catalog.isPending ? <Loading /> : catalog.isError ? <LoadError error={catalog.error} /> : <Matrix roles={roles.data} catalog={catalog.data} />}
        </>
      )}
    </>
  );
}

function RoleList({ roles }: { roles: Role[] }) {
  return (
    <Section id="roles-list" icon={RolesIcon} title={t('people.roles.list')} className="people-section">
      <ul className="people-roles">
        {roles.map((r) => (
          <li key={r.id}>
            <Link href={`/roles/${r.id}`}>{r.name}</Link>
            {r.builtin && (
              <>
                {' '}
                <Badge tone="accent" dot={false}>
                  {t('people.roles.builtin')}
                </Badge>
              </>
            )}
            {r.description && <span className="hint"> {r.description}</span>}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function NewRole() {
  const createRole = useCreateRole();
  const formRef = useRef<HTMLFormElement>(null);
  const [created, setCreated] = useState<{ name: string; id: string; at: number } | null>(null);
  const form = useSubmit(async (values) => {
    const description = (values.description ?? '').trim();
    const role = await createRole.mutateAsync({ name: values.name ?? '', ...(description ? { description } : {}) });
    formRef.current?.reset();
    setCreated({ name: role.name, id: role.id, at: Date.now() });
  });
  return (
    <Section id="roles-new" icon={AddIcon} title={t('people.roles.new')} className="people-section">
      <Outcome message={created ? t('people.roles.created', { name: created.name }) : null} error={null} stamp={created?.at ?? 0} />
      <form ref={formRef} noValidate onSubmit={(e) => void form.onSubmit(e)} className="people-inline-form">
        <FormError error={form.error} />
        <Field label="people.roles.name" name="name" autoComplete="off" required error={form.fields.name} />
        <Field label="people.roles.description" name="description" autoComplete="off" error={form.fields.description} />
        <button type="submit" disabled={form.pending}>
          <AddIcon className="icon" aria-hidden="true" />
          {t('people.roles.create')}
        </button>
      </form>
    </Section>
  );
}

/**
 * Permissions down, roles across; a checkbox per cell. A built-in role's column is read-only
 * (its grants are declared by the plugins). A checkbox is an unscoped grant; a custom role's
 * scoped grants (a connection, table, columns) are edited on the role's page and kept here.
 */
function Matrix({ roles, catalog }: { roles: Role[]; catalog: CatalogEntry[] }) {
  const saveGrants = useSaveGrants();
  const grants = useGrants(roles);
  const [edits, setEdits] = useState<Record<string, Record<string, boolean>>>({});
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<{ message: string | null; error: unknown; at: number }>({ message: null, error: null, at: 0 });

  const byRole = useMemo(() => {
    const map = new Map<string, Grant[]>();
    roles.forEach((r, i) => {
      const g = grants[i]?.data;
      if (g) map.set(r.id, g.grants);
    });
    return map;
  }, [roles, grants]);

  if (grants.some((g) => g.isPending)) return <Loading />;
  const failed = grants.find((g) => g.isError);
  if (failed) return <LoadError error={failed.error} />;

  const held = (role: Role, permission: string) => {
    const edited = edits[role.id]?.[permission];
    if (edited !== undefined) return edited;
    return (byRole.get(role.id) ?? []).some((g) => g.permission === permission && g.scope === null);
  };
  const scopedCount = (role: Role, permission: string) => (byRole.get(role.id) ?? []).filter((g) => g.permission === permission && g.scope !== null).length;
  const changed = roles.filter(
    (r) => !r.builtin && Object.entries(edits[r.id] ?? {}).some(([p, v]) => v !== (byRole.get(r.id) ?? []).some((g) => g.permission === p && g.scope === null)),
  );

  const toggle = (role: Role, permission: string, value: boolean) => setEdits((e) => ({ ...e, [role.id]: { ...e[role.id], [permission]: value } }));

  const save = async () => {
    setSaving(true);
    try {
      for (const role of changed) {
        const scoped = (byRole.get(role.id) ?? []).filter((g) => g.scope !== null);
        const plain = catalog.filter((p) => held(role, p.name)).map((p) => ({ permission: p.name }));
        await saveGrants.mutateAsync({ roleId: role.id, grants: [...plain, ...scoped] });
        setEdits((e) => ({ ...e, [role.id]: {} }));
      }
      setOutcome({ message: t('people.matrix.saved', { count: changed.length }), error: null, at: Date.now() });
    } catch (err) {
      setOutcome({ message: null, error: err, at: Date.now() });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Section id="matrix-title" icon={RolesIcon} title={t('people.matrix.title')} description={t('people.matrix.intro')} className="people-section">
      <Outcome message={outcome.message} error={outcome.error} stamp={outcome.at} />
      <DataTable
        className="people-matrix"
        caption={t('people.matrix.caption')}
        columns={[
          {
            id: 'permission',
            header: t('people.matrix.permission'),
            rowHeader: true,
            cell: (p: CatalogEntry) => (
              <>
                <span className="people-perm-label">{p.label}</span> <code>{p.name}</code>
                <span className="hint people-perm-desc">{p.description}</span>
              </>
            ),
          },
          ...roles.map((r): DataColumn<CatalogEntry> => ({
            id: r.id,
            header: (
              <>
                {r.name}
                {r.builtin && <span className="people-readonly"> {t('people.matrix.readOnly')}</span>}
              </>
            ),
            align: 'center',
            cell: (p) => {
              const scoped = r.builtin ? 0 : scopedCount(r, p.name);
              return (
                <>
                  <input
                    type="checkbox"
                    aria-label={t('people.matrix.cell', { permission: p.label, role: r.name })}
                    checked={r.builtin ? p.builtinRoles.includes(r.id as 'admin' | 'editor' | 'viewer') : held(r, p.name)}
                    disabled={r.builtin || saving}
                    onChange={(e) => toggle(r, p.name, e.currentTarget.checked)}
                  />
                  {scoped > 0 && (
                    <Link href={`/roles/${r.id}`} className="people-scoped">
                      {t('people.matrix.scoped', { count: scoped })}
                    </Link>
                  )}
                </>
              );
            },
          })),
        ]}
        rows={catalog}
        rowKey={(p) => p.name}
      />
      <div className="actions">
        <button type="button" disabled={saving || changed.length === 0} onClick={() => void save()}>
          {saving ? t('people.saving') : t('people.matrix.save', { count: changed.length })}
        </button>
        {changed.length > 0 && (
          <button type="button" className="secondary" disabled={saving} onClick={() => setEdits({})}>
            {t('people.matrix.discard')}
          </button>
        )}
      </div>
    </Section>
  );
}
