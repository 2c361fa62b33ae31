import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Field, FieldFrame, FormError, Loading, SelectField, useTitle } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useConnectionList, useSchema } from '../connections/api';
import { usePermissions } from '../account/api';
import { useRoles } from '../people/api';
import {
  KINDS,
  pagePaths,
  TABLE_KINDS,
  useCreatePage,
  useDeletePage,
  useDuplicatePage,
  usePage,
  usePagesNav,
  useUpdatePage,
  type Page,
  type PageKind,
} from './api';
import { ConfigForm } from './ConfigForm';
import './pages.css';
import { AddIcon, CopyIcon, DeleteIcon, EditIcon, ListIcon, OpenIcon, PagesIcon, SaveIcon, SettingsIcon } from '../../ui/icons';
import { DataTable } from '../../ui/DataTable';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { KIND_ICON } from './Nav';
import { Section } from '../../ui/Section';
import { BackLink } from '../../ui/BackLink';

const KIND_LABEL = {
  list: 'pages.kind.list',
  detail: 'pages.kind.detail',
  form: 'pages.kind.form',
  dashboard: 'pages.kind.dashboard',
  custom: 'pages.kind.custom',
} as const;

/** `/pages`: every page the caller sees, with New page (decision DB29). */
export function PageList() {
  useTitle('pages.list.title');
  const pages = usePagesNav();
  const canNav = usePermissions()?.has('pages.admin') ?? false;
  return (
    <>
      <PageHeader
        title={t('pages.list.title')}
        actions={
          <>
            {canNav && (
              <Link href="/pages/nav" className="button secondary">
                <ListIcon className="icon" aria-hidden="true" />
                {t('pages.list.navEditor')}
              </Link>
            )}
            <Link href={pagePaths.create} className="button">
              <AddIcon className="icon" aria-hidden="true" />
              {t('pages.list.new')}
            </Link>
          </>
        }
      />
      {pages.isPending ? (
        <Loading />
      ) : pages.isError ? (
        <ErrorPanel error={pages.error} onRetry={() => void pages.refetch()} />
      ) : (
        <DataTable
          className="pages-table"
          caption={t('pages.list.title')}
          captionHidden
          rows={pages.data}
          rowKey={(p) => p.id}
          empty={<EmptyState icon={PagesIcon}>{t('pages.list.empty')}</EmptyState>}
          columns={[
            {
              id: 'title',
              header: t('pages.field.title'),
              rowHeader: true,
              cell: (p) => <Link href={pagePaths.open(p.slug)}>{p.title}</Link>,
            },
            {
              id: 'kind',
              header: t('pages.field.kind'),
              cell: (p) => {
                const Icon = KIND_ICON[p.kind];
                return (
                  <span className="pages-kind">
                    <Icon className="icon" aria-hidden="true" />
                    {t(KIND_LABEL[p.kind])}
                  </span>
                );
              },
            },
            { id: 'slug', header: t('pages.field.slug'), cell: (p) => <code>{p.slug}</code> },
            {
              id: 'actions',
              header: t('pages.list.actions'),
              align: 'end',
              cell: (p) => (
                <Link href={pagePaths.edit(p.id)} className="button ghost" aria-label={t('pages.list.editOne', { title: p.title })}>
                  <EditIcon className="icon" aria-hidden="true" />
                  {t('pages.list.edit')}
                </Link>
              ),
            },
          ]}
        />
      )}
    </>
  );
}

/**
 * Roles as checkboxes: none checked is "anyone who may see pages". Without roles.read (GET /roles
 * refused) the role ids are typed, comma-separated; the server answers `unknown-role` (DB29).
 */
function RolesPicker({ value, onChange, error }: { value: string[]; onChange: (roles: string[]) => void; error?: string }) {
  const roles = useRoles();
  const [typed, setTyped] = useState(value.join(', '));
  if (roles.isError)
    return (
      <Field
        label="pages.field.visibleToTyped"
        name="visibleToTyped"
        hint="pages.field.visibleToTypedHint"
        value={typed}
        error={error}
        onChange={(e) => {
          setTyped(e.target.value);
          onChange(
            e.target.value
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
          );
        }}
      />
    );
  return (
    <fieldset className="pages-roles">
      <legend>{t('pages.field.visibleTo')}</legend>
      <p className="hint">{t('pages.field.visibleToHint')}</p>
      {error && <p className="field-error">{error}</p>}
      {(roles.data ?? []).map((r) => (
        <label key={r.id}>
          <input
            type="checkbox"
            checked={value.includes(r.id)}
            onChange={(e) => onChange(e.target.checked ? [...value, r.id] : value.filter((x) => x !== r.id))}
          />{' '}
          {r.name}
        </label>
      ))}
    </fieldset>
  );
}

/** The server's `unknown-role` issues (body.visibleTo.roles.N), together. */
function rolesIssue(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const found = error.issues.filter((i) => i.path.startsWith('body.visibleTo')).map((i) => i.message);
  return found.length ? found.join(' ') : undefined;
}

function issueAt(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.issues.find((i) => i.path === path)?.message;
}

/** The tables of the chosen connection (its schema is asked for only once one is chosen). */
function TablePicker({ conn, error }: { conn: string; error?: string }) {
  const schema = useSchema(conn);
  const tables = schema.data?.model.tables.filter((x) => !x.display.hidden) ?? [];
  return (
    <SelectField
      label="pages.field.table"
      name="table"
      required
      error={error}
      options={[{ value: '', label: t('pages.field.choose') }, ...tables.map((x) => ({ value: x.ref, label: x.display.label || x.name }))]}
    />
  );
}

/** `/pages/new`: title, kind, connection and table for table kinds, icon, who sees it. */
export function NewPage() {
  useTitle('pages.new.title');
  const [, navigate] = useLocation();
  const [kind, setKind] = useState<PageKind>('list');
  const [conn, setConn] = useState('');
  const [roles, setRoles] = useState<string[]>([]);
  const connections = useConnectionList();
  const conns = connections.data?.pages.flatMap((p) => p.connections) ?? [];
  const create = useCreatePage();
  const needsTable = TABLE_KINDS.includes(kind);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const icon = String(f.get('icon') ?? '').trim();
    create.mutate(
      {
        title: String(f.get('title') ?? ''),
        kind,
        ...(needsTable ? { connectionId: conn, table: String(f.get('table') ?? '') } : {}),
        ...(icon ? { icon } : {}),
        ...(roles.length ? { visibleTo: { roles } } : {}),
      },
      { onSuccess: (page) => navigate(pagePaths.open(page.slug)) },
    );
  };
  return (
    <>
      <PageHeader title={t('pages.new.title')} />
      <form onSubmit={submit} className="pages-form">
        <Field label="pages.field.title" name="title" required maxLength={200} error={issueAt(create.error, 'body.title')} focusOnMount />
        <SelectField
          label="pages.field.kind"
          name="kind"
          value={kind}
          onChange={(e) => setKind(e.target.value as PageKind)}
          options={KINDS.map((k) => ({ value: k, label: t(KIND_LABEL[k]) }))}
        />
        {needsTable && (
          <>
            <SelectField
              label="pages.field.connection"
              name="connectionId"
              required
              value={conn}
              onChange={(e) => setConn(e.target.value)}
              error={issueAt(create.error, 'body.connectionId')}
              options={[{ value: '', label: t('pages.field.choose') }, ...conns.map((c) => ({ value: c.id, label: c.name }))]}
            />
            {conn ? (
              <TablePicker conn={conn} error={issueAt(create.error, 'body.table')} />
            ) : (
              <SelectField label="pages.field.table" name="table" required disabled options={[{ value: '', label: t('pages.field.choose') }]} />
            )}
          </>
        )}
        <Field label="pages.field.icon" name="icon" maxLength={64} hint="pages.field.iconHint" />
        <RolesPicker value={roles} onChange={setRoles} error={rolesIssue(create.error)} />
        <FormError error={create.error} />
        <p className="actions">
          <button type="submit" disabled={create.isPending}>
            {t('pages.new.submit')}
          </button>{' '}
          <Link href={pagePaths.list}>{t('pages.cancel')}</Link>
        </p>
      </form>
    </>
  );
}

/** `/pages/:id/edit`: title, slug, icon, who sees it; duplicate; delete with a confirmation. */
export function EditPage() {
  useTitle('pages.edit.title');
  const { id } = useParams<{ id: string }>();
  const page = usePage(id);
  const [configSaved, setConfigSaved] = useState(false);
  if (page.isPending) return <Loading />;
  if (page.isError)
    return (
      <>
        <h1>{t('pages.edit.title')}</h1>
        <ErrorPanel error={page.error} onRetry={() => void page.refetch()} />
      </>
    );
  // Each save changes updatedAt and draws the forms again from the page: "saved" outlives that.
  return (
    <EditForm key={page.data.updatedAt} page={page.data}>
      <ConfigForm page={page.data} saved={configSaved} onSaved={setConfigSaved} />
    </EditForm>
  );
}

function EditForm({ page, children }: { page: Page; children?: ReactNode }) {
  const [, navigate] = useLocation();
  const [roles, setRoles] = useState<string[]>(page.visibleTo?.roles ?? []);
  const [confirming, setConfirming] = useState(false);
  const [saved, setSaved] = useState(false);
  const update = useUpdatePage(page.id);
  const duplicate = useDuplicatePage(page.id);
  const remove = useDeletePage(page.id);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setSaved(false);
    const f = new FormData(e.currentTarget);
    const icon = String(f.get('icon') ?? '').trim();
    update.mutate(
      { title: String(f.get('title') ?? ''), slug: String(f.get('slug') ?? ''), icon: icon || null, visibleTo: roles.length ? { roles } : null },
      { onSuccess: () => setSaved(true) },
    );
  };
  return (
    <>
      <BackLink href={pagePaths.list}>{t('pages.edit.back')}</BackLink>
      <PageHeader
        title={t('pages.edit.heading', { title: page.title })}
        actions={
          <Link href={pagePaths.open(page.slug)} className="button secondary">
            <OpenIcon className="icon" aria-hidden="true" />
            {t('pages.edit.open')}
          </Link>
        }
      />
      <Section title={t('pages.edit.details')} icon={KIND_ICON[page.kind]}>
        <form onSubmit={submit} className="pages-form">
          <Field label="pages.field.title" name="title" required maxLength={200} defaultValue={page.title} error={issueAt(update.error, 'body.title')} />
          <Field
            label="pages.field.slug"
            name="slug"
            required
            maxLength={200}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            defaultValue={page.slug}
            hint="pages.field.slugHint"
            error={
              issueAt(update.error, 'body.slug') ?? (update.error instanceof ApiError && update.error.code === 'CONFLICT' ? errorText(update.error) : undefined)
            }
          />
          <Field label="pages.field.icon" name="icon" maxLength={64} defaultValue={page.icon ?? ''} hint="pages.field.iconHint" />
          <FieldFrame label="pages.field.kind">{(fid) => <output id={fid}>{t(KIND_LABEL[page.kind])}</output>}</FieldFrame>
          <RolesPicker value={roles} onChange={setRoles} error={rolesIssue(update.error)} />
          <FormError error={update.error} />
          <p role="status">{saved ? t('pages.edit.saved') : ''}</p>
          <p className="actions">
            <button type="submit" disabled={update.isPending}>
              <SaveIcon className="icon" aria-hidden="true" />
              {t('pages.edit.save')}
            </button>
          </p>
        </form>
      </Section>
      {children}
      <Section id="pages-more" icon={SettingsIcon} title={t('pages.edit.more')} className="pages-danger">
        <p className="actions">
          <button
            type="button"
            disabled={duplicate.isPending}
            onClick={() => duplicate.mutate(undefined, { onSuccess: (copy) => navigate(pagePaths.edit(copy.id)) })}
            className="secondary"
          >
            <CopyIcon className="icon" aria-hidden="true" />
            {t('pages.edit.duplicate')}
          </button>{' '}
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            <DeleteIcon className="icon" aria-hidden="true" />
            {t('pages.edit.delete')}
          </button>
        </p>
        <FormError error={duplicate.error} />
        {remove.error && <DeleteRefused error={remove.error} />}
      </Section>
      {confirming && (
        <ConfirmDialog
          title={t('pages.delete.title', { title: page.title })}
          confirm={t('pages.delete.confirm')}
          cancel={t('pages.cancel')}
          pending={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            remove.mutate(undefined, {
              onSuccess: () => navigate(pagePaths.list),
              onSettled: () => setConfirming(false),
            })
          }
        >
          <p>{t('pages.delete.text')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** The server's refusal to delete, with the reports that use the page when it names them (PAGE_IN_USE). */
function DeleteRefused({ error }: { error: Error }) {
  const reports =
    error instanceof ApiError && Array.isArray(error.params.reports) ? (error.params.reports as Array<{ name?: string; id?: string } | string>) : [];
  return (
    <div role="alert" className="form-error">
      <p>{errorText(error)}</p>
      {reports.length > 0 && (
        <ul>
          {reports.map((r, i) => (
            <li key={i}>{typeof r === 'string' ? r : (r.name ?? r.id)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
