import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Field } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { usePermissions } from '../account/api';
import { canonical, searchViewQuery, useCreateView, useDeleteView, useUpdateView, useViews, viewSearch, type PageView } from './api';

const CONFIG = '__config';

/**
 * A table page's shared views (decision DB29): choosing one puts its query in the grid's URL;
 * "Save view" keeps the grid's current query under a name. Rename, default and delete act on
 * the view the URL shows. Write controls only with pages.write (the server still decides).
 */
export function ViewsPicker({ pageId, base, configSearch }: { pageId: string; base: string; configSearch: string }) {
  const id = useId();
  const search = useSearch();
  const [, navigate] = useLocation();
  const views = useViews(pageId);
  const canWrite = usePermissions()?.has('pages.write') ?? false;
  const [mode, setMode] = useState<'none' | 'save' | 'rename' | 'delete'>('none');
  const [status, setStatus] = useState('');
  const create = useCreateView(pageId);
  const update = useUpdateView(pageId);
  const remove = useDeleteView(pageId);
  const current = canonical(search);
  const list = views.data ?? [];
  const selected = list.find((v) => canonical(viewSearch(v.query)) === current);
  const value = selected?.id ?? (current === canonical(configSearch) ? CONFIG : '');
  const open = (v: PageView | undefined) => {
    const q = v ? viewSearch(v.query) : configSearch;
    setMode('none');
    setStatus('');
    navigate(base + (q ? `?${q}` : ''));
  };
  const done = (text: string) => {
    setMode('none');
    setStatus(text);
  };
  const saveNew = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const name = String(f.get('name') ?? '').trim();
    create.mutate(
      { name, query: searchViewQuery(search), isDefault: f.get('isDefault') === 'on' },
      { onSuccess: (v) => done(t('pages.views.saved', { name: v.name })) },
    );
  };
  const rename = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!selected) return;
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    update.mutate({ viewId: selected.id, name }, { onSuccess: (v) => done(t('pages.views.renamed', { name: v.name })) });
  };

  return (
    <section className="pages-views" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="visually-hidden">
        {t('pages.views.title')}
      </h2>
      <div className="pages-views-bar">
        <label htmlFor={`${id}-view`}>{t('pages.views.view')}</label>
        <select
          id={`${id}-view`}
          value={value}
          onChange={(e) => (e.target.value === CONFIG ? open(undefined) : open(list.find((v) => v.id === e.target.value)))}
        >
          {value === '' && <option value="">{t('pages.views.unsaved')}</option>}
          <option value={CONFIG}>{t('pages.views.pageDefault')}</option>
          {list.map((v) => (
            <option key={v.id} value={v.id}>
              {v.isDefault ? t('pages.views.defaultName', { name: v.name }) : v.name}
            </option>
          ))}
        </select>
        {canWrite && (
          <>
            <button type="button" aria-expanded={mode === 'save'} onClick={() => setMode(mode === 'save' ? 'none' : 'save')}>
              {t('pages.views.save')}
            </button>
            {selected && (
              <>
                <button type="button" className="secondary" aria-expanded={mode === 'rename'} onClick={() => setMode(mode === 'rename' ? 'none' : 'rename')}>
                  {t('pages.views.rename')}
                </button>
                <button
                  type="button"
                  className="secondary"
                  disabled={update.isPending}
                  onClick={() =>
                    update.mutate(
                      { viewId: selected.id, isDefault: !selected.isDefault },
                      {
                        onSuccess: (v) => done(t(v.isDefault ? 'pages.views.madeDefault' : 'pages.views.unmadeDefault', { name: v.name })),
                      },
                    )
                  }
                >
                  {t(selected.isDefault ? 'pages.views.unsetDefault' : 'pages.views.setDefault')}
                </button>
                <button type="button" className="danger" onClick={() => setMode('delete')}>
                  {t('pages.views.delete')}
                </button>
              </>
            )}
          </>
        )}
      </div>
      {views.isError && <p className="form-error">{errorText(views.error)}</p>}
      {mode === 'save' && (
        <NameForm
          label="pages.views.name"
          error={create.error}
          pending={create.isPending}
          submit="pages.views.saveSubmit"
          onSubmit={saveNew}
          onCancel={() => setMode('none')}
        >
          <label className="pages-check">
            <input type="checkbox" name="isDefault" /> {t('pages.views.makeDefault')}
          </label>
          <p className="hint">{t('pages.views.saveHint')}</p>
        </NameForm>
      )}
      {mode === 'rename' && selected && (
        <NameForm
          label="pages.views.newName"
          defaultValue={selected.name}
          error={update.error}
          pending={update.isPending}
          submit="pages.views.renameSubmit"
          onSubmit={rename}
          onCancel={() => setMode('none')}
        />
      )}
      {mode === 'delete' && selected && (
        <ConfirmDialog
          title={t('pages.views.deleteTitle', { name: selected.name })}
          confirm={t('pages.views.deleteConfirm')}
          cancel={t('pages.cancel')}
          pending={remove.isPending}
          onCancel={() => setMode('none')}
          onConfirm={() =>
            remove.mutate(selected.id, {
              onSuccess: () => done(t('pages.views.deleted', { name: selected.name })),
              onError: () => setMode('none'),
            })
          }
        >
          <p>{t('pages.views.deleteText')}</p>
        </ConfirmDialog>
      )}
      {remove.error && <p className="form-error">{errorText(remove.error)}</p>}
      {update.error && mode !== 'rename' && <p className="form-error">{errorText(update.error)}</p>}
      <p role="status" className="pages-views-status">
        {status}
      </p>
    </section>
  );
}

/** The server's word on a view's name, else the error's own. */
const nameError = (err: unknown) => (err instanceof ApiError ? (err.issues.find((i) => i.path === 'body.name')?.message ?? errorText(err)) : errorText(err));

/** A view's name with its submit and cancel: saving a new view and renaming one are the same form. */
function NameForm(props: {
  label: MessageId;
  defaultValue?: string;
  error: unknown;
  pending: boolean;
  submit: MessageId;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
  onCancel: () => void;
  children?: ReactNode;
}) {
  return (
    <form className="pages-views-form" onSubmit={props.onSubmit}>
      <Field
        label={props.label}
        name="name"
        required
        maxLength={120}
        focusOnMount
        defaultValue={props.defaultValue}
        error={props.error ? nameError(props.error) : undefined}
      />
      {props.children}
      <p className="actions">
        <button type="submit" disabled={props.pending}>
          {t(props.submit)}
        </button>{' '}
        <button type="button" className="secondary" onClick={props.onCancel}>
          {t('pages.cancel')}
        </button>
      </p>
    </form>
  );
}
