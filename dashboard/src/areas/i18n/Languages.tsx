import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { DataTable } from '../../ui/DataTable';
import { PageHeader } from '../../ui/PageHeader';
import { AddIcon, DeleteIcon, EditIcon } from '../../ui/icons';
import { useAddLocale, useDeleteLocale, useLocales, usePatchLocale, type Locale } from './api';
import { dirText, refusalText } from './common';

/** The share of a locale's messages translated (stored or shipped), over every namespace. */
function completeness(locale: Locale): number {
  const values = Object.values(locale.completeness);
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/**
 * /settings/languages (issue 31, IN20): the instance's locales with how complete each is, enable
 * and disable, the fallback, delete, and a form to add one. A refusal is said in words beside
 * what was tried (the row's own alert, or the form's).
 */
export function Languages() {
  useTitle('i18n.languages.title');
  const locales = useLocales();
  const patch = usePatchLocale();
  const remove = useDeleteLocale();
  const [refusal, setRefusal] = useState<{ locale: string; text: string } | null>(null);
  const [done, setDone] = useState('');
  const [deleting, setDeleting] = useState<Locale | null>(null);

  const refuse = (locale: string) => (error: unknown) => setRefusal({ locale, text: refusalText(error) });
  const change = (locale: Locale, body: { enabled?: boolean; fallback?: string }) => {
    setRefusal(null);
    setDone('');
    patch.mutate(
      { locale: locale.locale, ...body },
      { onError: refuse(locale.locale), onSuccess: () => setDone(t('i18n.languages.changed', { name: locale.name })) },
    );
  };

  const all = locales.data ?? [];
  return (
    <>
      <Breadcrumbs items={[{ label: t('i18n.breadcrumbs.settings'), href: '/settings' }, { label: t('i18n.languages.title') }]} />
      <PageHeader title={t('i18n.languages.title')} description={t('i18n.languages.intro')} />
      <div aria-live="polite">
        {done && (
          <p className="notice" role="status">
            {done}
          </p>
        )}
      </div>
      {locales.isPending ? (
        <Loading />
      ) : locales.isError ? (
        <ErrorPanel error={locales.error} onRetry={() => void locales.refetch()} />
      ) : (
        <DataTable
          label={t('i18n.languages.listLabel')}
          rows={all}
          rowKey={(l) => l.locale}
          rowAttributes={(l) => ({ 'data-locale': l.locale })}
          columns={[
            {
              id: 'name',
              header: t('i18n.languages.name'),
              rowHeader: true,
              cell: (l) => (
                <>
                  <span lang={l.locale.replace(/_/g, '-')}>{l.name}</span>
                  {l.shipped && <span className="i18n-state"> · {t('i18n.languages.shipped')}</span>}
                </>
              ),
            },
            { id: 'code', header: t('i18n.languages.code'), cell: (l) => <code>{l.locale}</code> },
            { id: 'dir', header: t('i18n.languages.dir'), cell: (l) => dirText(l.dir) },
            {
              id: 'fallback',
              header: t('i18n.languages.fallback'),
              cell: (l) =>
                l.locale === 'en' ? (
                  t('i18n.languages.none')
                ) : (
                  <select
                    aria-label={t('i18n.languages.fallbackOf', { name: l.name })}
                    value={l.fallback ?? ''}
                    disabled={patch.isPending}
                    onChange={(e) => change(l, { fallback: e.currentTarget.value })}
                  >
                    {all
                      .filter((o) => o.locale !== l.locale)
                      .map((o) => (
                        <option key={o.locale} value={o.locale}>
                          {o.name} ({o.locale})
                        </option>
                      ))}
                  </select>
                ),
            },
            {
              id: 'completeness',
              header: t('i18n.languages.completeness'),
              cell: (l) => (
                <span className="i18n-completeness">
                  <progress max={1} value={completeness(l)} aria-label={t('i18n.languages.completenessLabel', { name: l.name, value: completeness(l) })} />
                  {t('i18n.languages.percent', { value: completeness(l) })}
                </span>
              ),
            },
            { id: 'state', header: t('i18n.languages.state'), cell: (l) => t(l.enabled ? 'i18n.languages.enabled' : 'i18n.languages.disabled') },
            {
              id: 'actions',
              header: t('i18n.languages.actions'),
              cell: (l) => (
                <>
                  <div className="i18n-actions">
                    <Link href={`/settings/languages/${encodeURIComponent(l.locale)}`} className="button secondary">
                      <EditIcon className="icon" aria-hidden="true" />
                      {t('i18n.languages.translate', { name: l.name })}
                    </Link>
                    <button type="button" className="secondary" disabled={patch.isPending} onClick={() => change(l, { enabled: !l.enabled })}>
                      {t(l.enabled ? 'i18n.languages.disable' : 'i18n.languages.enable', { name: l.name })}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        setRefusal(null);
                        setDone('');
                        setDeleting(l);
                      }}
                    >
                      <DeleteIcon className="icon" aria-hidden="true" />
                      {t('i18n.languages.delete', { name: l.name })}
                    </button>
                  </div>
                  {refusal?.locale === l.locale && (
                    <p className="form-error" role="alert">
                      {refusal.text}
                    </p>
                  )}
                </>
              ),
            },
          ]}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('i18n.languages.deleteTitle', { name: deleting.name })}
          confirm={t('i18n.languages.delete', { name: deleting.name })}
          cancel={t('i18n.editor.cancel')}
          pending={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.locale, {
              onSuccess: () => {
                setDone(t('i18n.languages.deleted', { name: deleting.name }));
                setDeleting(null);
              },
              onError: (error) => {
                refuse(deleting.locale)(error);
                setDeleting(null);
              },
            })
          }
        >
          <p>{t('i18n.languages.deleteBody')}</p>
        </ConfirmDialog>
      )}
      <AddLanguage locales={all} />
    </>
  );
}

function AddLanguage({ locales }: { locales: readonly Locale[] }) {
  const add = useAddLocale();
  const [added, setAdded] = useState('');
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const value = (name: string) => String(data.get(name) ?? '').trim();
    const body = {
      locale: value('locale'),
      name: value('name'),
      ...(value('fallback') ? { fallback: value('fallback') } : {}),
      ...(value('dir') === 'ltr' || value('dir') === 'rtl' ? { dir: value('dir') as 'ltr' | 'rtl' } : {}),
    };
    setAdded('');
    add.mutate(body, {
      onSuccess: () => {
        setAdded(t('i18n.add.added', { name: body.name }));
        form.reset();
      },
    });
  };
  return (
    <section className="i18n-section" aria-labelledby="i18n-add">
      <h2 id="i18n-add">{t('i18n.add.title')}</h2>
      <form className="i18n-add" onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor="i18n-add-locale">{t('i18n.add.code')}</label>
          <input id="i18n-add-locale" name="locale" required aria-describedby="i18n-add-locale-hint" autoComplete="off" spellCheck={false} />
          <p className="hint" id="i18n-add-locale-hint">
            {t('i18n.add.codeHint')}
          </p>
        </div>
        <div className="field">
          <label htmlFor="i18n-add-name">{t('i18n.add.name')}</label>
          <input id="i18n-add-name" name="name" required maxLength={60} aria-describedby="i18n-add-name-hint" />
          <p className="hint" id="i18n-add-name-hint">
            {t('i18n.add.nameHint')}
          </p>
        </div>
        <div className="field">
          <label htmlFor="i18n-add-fallback">{t('i18n.add.fallback')}</label>
          <select id="i18n-add-fallback" name="fallback" defaultValue="">
            <option value="">{t('i18n.add.fallbackDefault')}</option>
            {locales.map((l) => (
              <option key={l.locale} value={l.locale}>
                {l.name} ({l.locale})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="i18n-add-dir">{t('i18n.add.dir')}</label>
          <select id="i18n-add-dir" name="dir" defaultValue="">
            <option value="">{t('i18n.add.dirDefault')}</option>
            <option value="ltr">{dirText('ltr')}</option>
            <option value="rtl">{dirText('rtl')}</option>
          </select>
        </div>
        <div className="actions">
          <button type="submit" disabled={add.isPending}>
            <AddIcon className="icon" aria-hidden="true" />
            {add.isPending ? t('i18n.add.submitting') : t('i18n.add.submit')}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {added && (
          <p className="notice" role="status">
            {added}
          </p>
        )}
      </div>
      {add.isError && (
        <p className="form-error" role="alert">
          {refusalText(add.error)}
        </p>
      )}
    </section>
  );
}
