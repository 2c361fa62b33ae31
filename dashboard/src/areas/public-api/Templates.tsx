import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { useTemplates } from './api';
import { PublicApiHeader, when } from './shared';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { EditIcon, TemplateIcon } from '../../ui/icons';

export const templatePath = (key: string, locale: string) => `/public-api/email-templates/${encodeURIComponent(key)}/${encodeURIComponent(locale)}`;

/** Every e-mail template by key and locale; edited ones marked. A locale not listed yet can be opened by name. */
export function Templates() {
  useTitle('publicApi.templates.title');
  const list = useTemplates();
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  const keys = [...new Set(list.data.map((x) => x.key))];

  return (
    <>
      <PublicApiHeader title={t('publicApi.templates.title')} description={t('publicApi.templates.intro')} />
      {keys.length === 0 && <EmptyState icon={TemplateIcon}>{t('publicApi.templates.empty')}</EmptyState>}
      {keys.map((key) => (
        <section key={key} className="pa-card card section" aria-labelledby={`tpl-${key}`}>
          <h2 id={`tpl-${key}`} className="pa-template-key">
            <TemplateIcon className="icon section-icon" aria-hidden="true" />
            <code>{key}</code>
          </h2>
          <ul className="pa-templates">
            {list.data
              .filter((x) => x.key === key)
              .map((x) => (
                <li key={x.locale} data-testid="template">
                  <Link href={templatePath(x.key, x.locale)} aria-label={t('publicApi.templates.editLabel', { key: x.key, locale: x.locale })}>
                    {x.locale}
                  </Link>{' '}
                  <span>{x.subject}</span>{' '}
                  {x.edited ? (
                    <Badge tone="accent" dot={false}>
                      {x.updatedAt ? t('publicApi.templates.editedAt', { when: when(x.updatedAt) }) : t('publicApi.templates.edited')}
                    </Badge>
                  ) : (
                    <span className="pa-muted">{t('publicApi.templates.default')}</span>
                  )}
                </li>
              ))}
          </ul>
          <OtherLocale templateKey={key} />
        </section>
      ))}
    </>
  );
}

function OtherLocale({ templateKey }: { templateKey: string }) {
  const id = useId();
  const [locale, setLocale] = useState('');
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (locale.trim()) navigate(templatePath(templateKey, locale.trim()));
  };
  return (
    <form noValidate onSubmit={onSubmit} className="pa-inline-form">
      <div className="field">
        <label htmlFor={id}>{t('publicApi.templates.otherLocale')}</label>
        <p className="hint" id={`${id}-hint`}>
          {t('publicApi.templates.otherLocaleHint')}
        </p>
        <input id={id} value={locale} onChange={(e) => setLocale(e.target.value)} aria-describedby={`${id}-hint`} autoComplete="off" />
      </div>
      <button type="submit" className="secondary">
        <EditIcon className="icon" aria-hidden="true" />
        {t('publicApi.templates.open')}
      </button>
    </form>
  );
}
