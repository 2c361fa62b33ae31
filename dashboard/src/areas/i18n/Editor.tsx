import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { checkMessage, placeholdersOf, type IcuProblem } from '../../../../i18n/icu-check';
import { ApiError } from '../../api/errors';
import { bcp47, t } from '../../i18n/t';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { PageHeader } from '../../ui/PageHeader';
import { ExportIcon, ImportIcon } from '../../ui/icons';
import {
  exportHref,
  useBundle,
  useFormatErrors,
  useImport,
  useKeys,
  useLocales,
  useNamespaces,
  useRemoveKey,
  useSaveKey,
  type ExportFormat,
  type KeyRow,
  type Locale,
} from './api';
import { refusalText } from './common';

/**
 * /settings/languages/:locale — the translation editor (issue 31, IN21): the keys of one locale,
 * filtered by namespace, text and "missing only" (the address keeps the filters, so a format error
 * links to its key), English, the fallback's text and this locale's side by side; the ICU check
 * (i18n/icu-check.ts, the server's own) as the person types, the placeholders as chips, the plural
 * forms of this language (Intl.PluralRules) previewed; import and export.
 */
export function Editor() {
  useTitle('i18n.languages.title');
  const params = useParams<{ locale: string }>();
  const code = decodeURIComponent(params.locale ?? '');
  const locales = useLocales();
  const locale = locales.data?.find((l) => l.locale === code);
  return (
    <>
      <Breadcrumbs
        items={[
          { label: t('i18n.breadcrumbs.settings'), href: '/settings' },
          { label: t('i18n.languages.title'), href: '/settings/languages' },
          { label: locale?.name ?? code },
        ]}
      />
      {locales.isPending ? (
        <Loading />
      ) : locales.isError ? (
        <ErrorPanel error={locales.error} onRetry={() => void locales.refetch()} />
      ) : !locale ? (
        <p className="form-error" role="alert">
          {t('i18n.refusal.notFound')}
        </p>
      ) : (
        <EditorFor locale={locale} />
      )}
    </>
  );
}

function EditorFor({ locale }: { locale: Locale }) {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const namespace = search.get('namespace') ?? '';
  const q = search.get('q') ?? '';
  const missing = search.get('missing') === 'true';
  const setFilter = (next: { namespace?: string; q?: string; missing?: boolean }) => {
    const merged = { namespace, q, missing, ...next };
    const query = new URLSearchParams({
      ...(merged.namespace ? { namespace: merged.namespace } : {}),
      ...(merged.q ? { q: merged.q } : {}),
      ...(merged.missing ? { missing: 'true' } : {}),
    }).toString();
    navigate(`/settings/languages/${encodeURIComponent(locale.locale)}${query ? `?${query}` : ''}`, { replace: true });
  };
  const namespaces = useNamespaces();
  const [text, setText] = useState(q);
  const keys = useKeys(locale.locale, namespace, q, missing);
  const rows = keys.data?.pages.flatMap((p) => p.keys) ?? [];
  const fallbackName = (code: string | null) => code ?? 'en';

  return (
    <>
      <PageHeader
        title={t('i18n.editor.title', { name: locale.name })}
        description={t('i18n.editor.intro')}
        actions={
          <Link href="/settings/languages" className="button secondary">
            {t('i18n.editor.back')}
          </Link>
        }
      />
      <form
        className="i18n-filters"
        role="search"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setFilter({ q: text.trim() });
        }}
      >
        <div className="field">
          <label htmlFor="i18n-ns">{t('i18n.editor.namespace')}</label>
          <select id="i18n-ns" value={namespace} onChange={(e) => setFilter({ namespace: e.currentTarget.value })}>
            <option value="">{t('i18n.editor.allNamespaces')}</option>
            {(namespaces.data ?? []).map((ns) => (
              <option key={ns} value={ns}>
                {ns}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="i18n-q">{t('i18n.editor.search')}</label>
          <input id="i18n-q" type="search" value={text} onChange={(e) => setText(e.currentTarget.value)} onBlur={() => setFilter({ q: text.trim() })} />
        </div>
        <label className="i18n-checkbox">
          <input type="checkbox" checked={missing} onChange={(e) => setFilter({ missing: e.currentTarget.checked })} />
          {t('i18n.editor.missingOnly')}
        </label>
      </form>
      {keys.isPending ? (
        <Loading />
      ) : keys.isError ? (
        <ErrorPanel error={keys.error} onRetry={() => void keys.refetch()} />
      ) : rows.length === 0 ? (
        <p>{t('i18n.editor.empty')}</p>
      ) : (
        <ul className="i18n-rows" aria-label={t('i18n.editor.listLabel', { name: locale.name })}>
          {rows.map((row) => (
            <KeyItem key={`${row.namespace}:${row.key}`} row={row} locale={locale} fallback={locale.fallback} fallbackLabel={fallbackName(locale.fallback)} />
          ))}
        </ul>
      )}
      {keys.hasNextPage && (
        <p>
          <button type="button" className="secondary" disabled={keys.isFetchingNextPage} onClick={() => void keys.fetchNextPage()}>
            {t('i18n.editor.more')}
          </button>
        </p>
      )}
      <FormatErrors locale={locale} />
      <Transfer locale={locale} namespace={namespace} />
    </>
  );
}

/** One message: its key and state, the three sides, and its editor once opened. */
function KeyItem({ row, locale, fallback, fallbackLabel }: { row: KeyRow; locale: Locale; fallback: string | null; fallbackLabel: string }) {
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState('');
  const fallbackBundle = useBundle(fallback && fallback !== 'en' ? fallback : null, row.namespace);
  const fallbackText = fallback && fallback !== 'en' ? fallbackBundle.data?.[row.key] : undefined;
  const lang = bcp47(locale.locale);
  return (
    <li className="i18n-row" data-key={row.key}>
      <div className="i18n-row-head">
        <p className="i18n-key">
          {row.namespace} · {row.key}
        </p>
        <span className="i18n-state" data-state={row.state}>
          {t('i18n.editor.state', { state: row.state })}
        </span>
      </div>
      <dl className="i18n-sides">
        <div>
          <dt>{t('i18n.editor.source')}</dt>
          <dd lang="en" dir="ltr">
            {row.source}
          </dd>
        </div>
        {fallbackText !== undefined && (
          <div>
            <dt>{t('i18n.editor.fallback', { name: fallbackLabel })}</dt>
            <dd lang={bcp47(fallbackLabel)}>{fallbackText}</dd>
          </div>
        )}
        <div>
          <dt>{t('i18n.editor.target', { name: locale.name })}</dt>
          <dd lang={lang} dir={locale.dir}>
            {row.value ?? '—'}
          </dd>
        </div>
      </dl>
      <div aria-live="polite">
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
      </div>
      {open ? (
        <KeyEditor
          row={row}
          locale={locale}
          onDone={(said) => {
            setOpen(false);
            setNotice(said);
          }}
        />
      ) : (
        <p>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setNotice('');
              setOpen(true);
            }}
          >
            {t('i18n.editor.edit', { key: row.key })}
          </button>
        </p>
      )}
    </li>
  );
}

/** A problem of the ICU check in the dashboard's words. */
function problemText(problem: IcuProblem): string {
  const list = (items?: string[]) => (items && items.length ? items.join(', ') : t('i18n.editor.nothing'));
  switch (problem.kind) {
    case 'syntax':
      return t('i18n.editor.problem.syntax', { at: (problem.offset ?? 0) + 1 });
    case 'placeholders':
      return t('i18n.editor.problem.placeholders', { expected: list(problem.expected), found: list(problem.found) });
    case 'plural-other':
      return t('i18n.editor.problem.pluralOther');
    case 'tags':
      return t('i18n.editor.problem.tags', { expected: list(problem.expected), found: list(problem.found) });
  }
}

/** The plural arguments of a message (`count` of `{count, plural, …}`), anywhere in it. */
function pluralArgs(elements: MessageFormatElement[]): string[] {
  const found = new Set<string>();
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.plural) found.add(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const option of Object.values(el.options)) walk(option.value);
      if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(elements);
  return [...found];
}

/** A number of each plural category of the language (0…200, else a fraction), to preview the message with. */
function samples(lang: string): Array<{ category: string; n: number }> {
  const rules = new Intl.PluralRules(lang);
  const candidates = [...Array.from({ length: 201 }, (_, i) => i), 1.5, 0.5];
  return rules.resolvedOptions().pluralCategories.map((category) => ({ category, n: candidates.find((n) => rules.select(n) === category) ?? 0 }));
}

/** The message as a person would read it for `n`: every other argument shown as its name. */
function preview(text: string, lang: string, arg: string, n: number, names: string[]): string {
  try {
    const values: Record<string, string | number> = Object.fromEntries(names.map((name) => [name, `{${name}}`]));
    values[arg] = n;
    return String(new IntlMessageFormat(text, lang).format(values));
  } catch {
    return '';
  }
}

function KeyEditor({ row, locale, onDone }: { row: KeyRow; locale: Locale; onDone: (said: string) => void }) {
  const id = useId();
  const [value, setValue] = useState(row.value ?? row.source);
  const save = useSaveKey();
  const remove = useRemoveKey();
  const lang = bcp47(locale.locale);
  const problems = useMemo(() => checkMessage(value, row.source), [value, row.source]);
  const chips = useMemo(() => placeholdersOf(row.source), [row.source]);
  const plurals = useMemo(() => {
    if (problems.some((p) => p.kind === 'syntax')) return [];
    try {
      return pluralArgs(parse(value));
    } catch {
      return [];
    }
  }, [value, problems]);
  const names = useMemo(() => chips.map((c) => c.replace(/^\{([^,}]+).*$/, '$1')), [chips]);
  const categories = useMemo(() => samples(lang), [lang]);
  const serverProblem = save.error instanceof ApiError ? refusalText(save.error) : save.error ? refusalText(save.error) : '';

  return (
    <form
      className="i18n-editor"
      onSubmit={(e) => {
        e.preventDefault();
        if (problems.length > 0) return;
        save.mutate({ namespace: row.namespace, key: row.key, locale: locale.locale, value }, { onSuccess: () => onDone(t('i18n.editor.saved')) });
      }}
    >
      <div className="field">
        <label htmlFor={`${id}-value`}>{t('i18n.editor.valueLabel', { name: locale.name, key: row.key })}</label>
        <textarea
          id={`${id}-value`}
          lang={lang}
          dir={locale.dir}
          value={value}
          autoFocus
          aria-invalid={problems.length > 0}
          aria-describedby={`${id}-check`}
          onChange={(e) => setValue(e.currentTarget.value)}
        />
      </div>
      <div id={`${id}-check`} aria-live="polite">
        {problems.length === 0 ? (
          <p className="i18n-check-ok">{t('i18n.editor.checkOk')}</p>
        ) : (
          <ul className="i18n-check-bad">
            {problems.map((p, i) => (
              <li key={i}>{problemText(p)}</li>
            ))}
          </ul>
        )}
      </div>
      <p id={`${id}-chips`}>{chips.length ? t('i18n.editor.placeholders') : t('i18n.editor.noPlaceholders')}</p>
      {chips.length > 0 && (
        <ul className="i18n-chips" aria-labelledby={`${id}-chips`}>
          {chips.map((chip) => (
            <li key={chip} className="i18n-chip" dir="ltr">
              {chip}
            </li>
          ))}
        </ul>
      )}
      {plurals.map((arg) => (
        <section key={arg} aria-label={t('i18n.editor.plurals', { name: locale.name })}>
          <p>{t('i18n.editor.pluralCategories', { categories: categories.map((c) => c.category).join(', ') })}</p>
          <ul className="i18n-plurals">
            {categories.map(({ category, n }) => (
              <li key={category}>
                <strong>{t('i18n.editor.pluralSample', { category, n })}</strong>{' '}
                <span lang={lang} dir={locale.dir}>
                  {preview(value, lang, arg, n, names)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {serverProblem && (
        <p className="form-error" role="alert">
          {serverProblem}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending || problems.length > 0}>
          {save.isPending ? t('i18n.editor.saving') : t('i18n.editor.save')}
        </button>
        <button type="button" className="secondary" onClick={() => onDone('')}>
          {t('i18n.editor.cancel')}
        </button>
        {row.value !== null && (row.state === 'override' || row.state === 'translated') && (
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate({ namespace: row.namespace, key: row.key, locale: locale.locale }, { onSuccess: () => onDone(t('i18n.editor.removed')) })
            }
          >
            {t('i18n.editor.remove')}
          </button>
        )}
      </div>
      {remove.isError && (
        <p className="form-error" role="alert">
          {refusalText(remove.error)}
        </p>
      )}
    </form>
  );
}

/** GET /i18n/format-errors of the locale, each linking to its key in the editor. */
function FormatErrors({ locale }: { locale: Locale }) {
  const errors = useFormatErrors(locale.locale);
  return (
    <section className="i18n-section" aria-labelledby="i18n-errors">
      <h2 id="i18n-errors">{t('i18n.errors.title')}</h2>
      {errors.isPending ? (
        <Loading />
      ) : errors.isError ? (
        <ErrorPanel error={errors.error} onRetry={() => void errors.refetch()} />
      ) : errors.data.length === 0 ? (
        <p>{t('i18n.errors.none')}</p>
      ) : (
        <ul>
          {errors.data.map((e) => (
            <li key={`${e.namespace}:${e.key}:${e.kind}`}>
              <Link
                href={`/settings/languages/${encodeURIComponent(locale.locale)}?${new URLSearchParams({ namespace: e.namespace, q: e.key }).toString()}`}
                aria-label={t('i18n.errors.open', { key: e.key })}
              >
                {t('i18n.errors.item', { namespace: e.namespace, key: e.key, message: problemText(e as IcuProblem) })}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const FORMATS: ReadonlyArray<{ value: ExportFormat; label: 'i18n.transfer.formatJson' | 'i18n.transfer.formatPo' | 'i18n.transfer.formatXliff' }> = [
  { value: 'json', label: 'i18n.transfer.formatJson' },
  { value: 'po', label: 'i18n.transfer.formatPo' },
  { value: 'xliff', label: 'i18n.transfer.formatXliff' },
];

/** A server's reason code as a select message's case (ICU cases cannot hold a hyphen: `icu-syntax` → `icu_syntax`). */
const selector = (reason: unknown) => String(reason ?? '').replace(/-/g, '_');

/** Export (a download link) and import (a file, checked first or imported) of the locale. */
function Transfer({ locale, namespace }: { locale: Locale; namespace: string }) {
  const [format, setFormat] = useState<ExportFormat>('po');
  const [file, setFile] = useState<File | null>(null);
  const [dryRun, setDryRun] = useState(true);
  const [overwrite, setOverwrite] = useState(false);
  const [missingFile, setMissingFile] = useState(false);
  const importing = useImport();
  const result = importing.data;
  return (
    <section className="i18n-section" aria-labelledby="i18n-transfer">
      <h2 id="i18n-transfer">{t('i18n.transfer.title')}</h2>
      <div className="field">
        <label htmlFor="i18n-format">{t('i18n.transfer.format')}</label>
        <select id="i18n-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as ExportFormat)}>
          {FORMATS.map((f) => (
            <option key={f.value} value={f.value}>
              {t(f.label)}
            </option>
          ))}
        </select>
      </div>
      <p>
        <a className="button secondary" href={exportHref(locale.locale, format, namespace)} download>
          <ExportIcon className="icon" aria-hidden="true" />
          {t('i18n.transfer.export', { name: locale.name })}
        </a>
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setMissingFile(!file);
          if (file) importing.mutate({ locale: locale.locale, file, format, dryRun, overwrite });
        }}
      >
        <div className="field">
          <label htmlFor="i18n-file">{t('i18n.transfer.file')}</label>
          <input id="i18n-file" type="file" accept=".json,.po,.xlf,.xliff" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </div>
        <label className="i18n-checkbox">
          <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} />
          {t('i18n.transfer.dryRun')}
        </label>
        <label className="i18n-checkbox">
          <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.currentTarget.checked)} />
          {t('i18n.transfer.overwrite')}
        </label>
        <div className="actions">
          <button type="submit" disabled={importing.isPending}>
            <ImportIcon className="icon" aria-hidden="true" />
            {importing.isPending ? t('i18n.transfer.importing') : t('i18n.transfer.import')}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {missingFile && (
          <p className="form-error" role="alert">
            {t('i18n.transfer.noFile')}
          </p>
        )}
        {result && (
          <>
            <p className="notice" role="status">
              {t('i18n.transfer.result', {
                dryRun: String(importing.variables?.dryRun ?? false),
                created: result.created,
                updated: result.updated,
                unchanged: result.unchanged,
                rejected: result.rejected.length,
              })}
            </p>
            {result.rejected.length > 0 && (
              <ul>
                {result.rejected.map((r) => (
                  <li key={`${r.namespace}:${r.key}`}>{t('i18n.transfer.rejected', { namespace: r.namespace, key: r.key, reason: selector(r.reason) })}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
      {importing.isError && (
        <p className="form-error" role="alert">
          {importing.error instanceof ApiError && importing.error.code === 'I18N_FILE_INVALID'
            ? t('i18n.transfer.invalid', { format: t(FORMATS.find((f) => f.value === format)!.label), reason: selector(importing.error.params.reason) })
            : refusalText(importing.error)}
        </p>
      )}
    </section>
  );
}
