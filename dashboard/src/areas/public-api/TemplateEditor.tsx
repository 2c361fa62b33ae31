import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Field, FormError, Loading, useTitle } from '../../ui';
import { useSaveTemplate, useTemplate, useTestSend, type Template } from './api';
import { PublicApiHeader } from './shared';

const decode = (raw: string | undefined) => {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    return raw ?? '';
  }
};

const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g;
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a test send shows for a variable it is not given: `[name]` (the server's rule). */
export function fill(template: string, html = false): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => (html ? escapeHtml(`[${name}]`) : `[${name}]`));
}

/** One template in one locale: subject, text and HTML with a live preview, save, and a test send. */
export function TemplateEditor() {
  const params = useParams<{ key: string; locale: string }>();
  const key = decode(params.key);
  const locale = decode(params.locale);
  useTitle('publicApi.template.documentTitle');
  const query = useTemplate(key, locale);

  return (
    <>
      <PublicApiHeader
        title={t('publicApi.template.title', { key, locale })}
        back={{ href: '/public-api/email-templates', label: t('publicApi.template.back') }}
      />
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <Editor key={`${key}/${locale}`} template={query.data} />
      )}
    </>
  );
}

function Editor({ template }: { template: Template }) {
  const id = useId();
  const [subject, setSubject] = useState(template.subject);
  const [text, setText] = useState(template.text);
  const [html, setHtml] = useState(template.html ?? '');
  const save = useSaveTemplate(template);
  const outcome = useRef<HTMLDivElement>(null);
  const settled = save.isSuccess || save.isError ? save.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);
  const error = save.error instanceof ApiError ? save.error : null;
  const fields = error?.fieldErrors() ?? {};
  const dirty = subject !== template.subject || text !== template.text || html !== (template.html ?? '');
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate({ subject, text, html: html.trim() === '' ? null : html });
  };
  const source =
    template.source === 'fallback'
      ? t('publicApi.template.source.fallback', { locale: template.resolvedLocale })
      : t(`publicApi.template.source.${template.source}`);

  return (
    <div className="pa-template">
      <section className="pa-card card section" aria-labelledby={`${id}-edit`}>
        <h2 id={`${id}-edit`}>{t('publicApi.template.editTitle')}</h2>
        <p className="hint">{source}</p>
        {template.variables.length > 0 && (
          <p className="hint">{t('publicApi.template.variables', { names: template.variables.map((v) => `{{${v}}}`).join(', ') })}</p>
        )}
        <form noValidate onSubmit={onSubmit}>
          <div ref={outcome} tabIndex={-1} className="outcome">
            <FormError error={error} />
            {save.isSuccess && !dirty && (
              <p className="notice" role="status">
                {t('publicApi.template.saved')}
              </p>
            )}
          </div>
          <Field label="publicApi.template.subject" name="subject" value={subject} onChange={(e) => setSubject(e.target.value)} error={fields.subject} />
          <TextArea label={t('publicApi.template.text')} value={text} onChange={setText} error={fields.text} rows={12} />
          <TextArea
            label={t('publicApi.template.html')}
            hint={t('publicApi.template.htmlHint')}
            value={html}
            onChange={setHtml}
            error={fields.html}
            rows={8}
            code
          />
          <button type="submit" disabled={save.isPending}>
            {save.isPending ? t('publicApi.template.saving') : t('publicApi.template.save')}
          </button>
        </form>
      </section>
      <Preview subject={subject} text={text} html={html} />
      <TestSend template={template} dirty={dirty} />
    </div>
  );
}

function TextArea({
  label,
  hint,
  value,
  onChange,
  error,
  rows,
  code,
}: {
  label: string;
  hint?: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  rows: number;
  code?: boolean;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <textarea
        id={id}
        rows={rows}
        className={code ? 'pa-code' : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The unsaved text as a test mail would show it; the HTML in a sandboxed frame (no scripts, no requests of its own origin). */
function Preview({ subject, text, html }: { subject: string; text: string; html: string }) {
  const id = useId();
  return (
    <section className="pa-card card section" aria-labelledby={`${id}-title`} data-testid="template-preview">
      <h2 id={`${id}-title`}>{t('publicApi.template.preview')}</h2>
      <p className="hint">{t('publicApi.template.previewHint')}</p>
      <dl className="pa-facts">
        <dt>{t('publicApi.template.subject')}</dt>
        <dd data-testid="preview-subject">{fill(subject)}</dd>
      </dl>
      <h3>{t('publicApi.template.text')}</h3>
      <pre className="pa-preview-text" data-testid="preview-text">
        {fill(text)}
      </pre>
      {html.trim() !== '' && (
        <>
          <h3>{t('publicApi.template.html')}</h3>
          <iframe className="pa-preview-html" title={t('publicApi.template.htmlFrame')} sandbox="" srcDoc={fill(html, true)} />
        </>
      )}
    </section>
  );
}

function TestSend({ template, dirty }: { template: Template; dirty: boolean }) {
  const id = useId();
  const send = useTestSend(template);
  const outcome = useRef<HTMLDivElement>(null);
  const settled = send.isSuccess || send.isError ? send.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);
  const error = send.error instanceof ApiError ? send.error : null;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send.mutate(String(new FormData(event.currentTarget).get('to') ?? ''));
  };
  return (
    <section className="pa-card card section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('publicApi.template.testTitle')}</h2>
      <p className="hint">{t('publicApi.template.testHint')}</p>
      {dirty && <p className="pa-warning">{t('publicApi.template.testUnsaved')}</p>}
      <form noValidate onSubmit={onSubmit}>
        <div ref={outcome} tabIndex={-1} className="outcome">
          {error && (
            <div className="form-error" role="alert">
              <p>{errorText(error)}</p>
            </div>
          )}
          {send.isSuccess && (
            <p className="notice" role="status">
              {t('publicApi.template.sent', { to: send.variables, locale: send.data.locale })}
            </p>
          )}
        </div>
        <Field label="publicApi.template.to" name="to" type="email" autoComplete="email" error={error?.fieldErrors().to} />
        <button type="submit" disabled={send.isPending}>
          {send.isPending ? t('publicApi.template.sending') : t('publicApi.template.send')}
        </button>
      </form>
    </section>
  );
}
