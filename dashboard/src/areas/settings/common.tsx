import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { Breadcrumbs, type Crumb } from '../../shell/Breadcrumbs';
import { ErrorPanel, FormError, useSubmit, useTitle } from '../../ui';
import { PageHeader } from '../../ui/PageHeader';
import './settings.css';

const SECTIONS: ReadonlyArray<{ path: string; label: MessageId }> = [
  { path: '/settings', label: 'settings.overview' },
  { path: '/settings/branding', label: 'settings.branding.link' },
  { path: '/settings/defaults', label: 'settings.defaults.link' },
  { path: '/settings/email', label: 'settings.email.link' },
  { path: '/settings/security', label: 'settings.security.link' },
  { path: '/settings/telemetry', label: 'settings.telemetry.link' },
  // The AI assistant's settings screen is the llm area's (its strings load with it).
  { path: '/settings/ai', label: 'settings.ai.link' },
  { path: '/settings/storage', label: 'settings.storage.link' },
  // Its screens are the i18n area's (areas/i18n, IN20).
  { path: '/settings/languages', label: 'settings.languages.link' },
];

/** A settings screen: breadcrumbs, its one h1, the links between the sections, then the content. */
export function SettingsScreen({ title, description, children }: { title: MessageId; description?: MessageId; children: ReactNode }) {
  useTitle(title);
  const [location] = useLocation();
  const crumbs: Crumb[] =
    title === 'settings.title' ? [{ label: t('settings.title') }] : [{ label: t('settings.title'), href: '/settings' }, { label: t(title) }];
  return (
    <>
      <Breadcrumbs items={crumbs} />
      <PageHeader title={t(title)} description={description ? t(description) : undefined} />
      <nav className="settings-sections" aria-label={t('settings.sectionsLabel')}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.path}>
              <Link href={s.path} aria-current={location === s.path ? 'page' : undefined}>
                {t(s.label)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {children}
    </>
  );
}

export const isDenied = (error: unknown) => error instanceof ApiError && error.status === 403;

/** A failed read: a clear word when the person lacks the permission, the usual panel otherwise. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  if (isDenied(error))
    return (
      <div className="form-error" role="alert">
        <p>{t('settings.denied')}</p>
      </div>
    );
  return <ErrorPanel error={error} onRetry={onRetry} />;
}

/** A failed save: the server's message, and what a 403 means here. */
export function SaveError({ error }: { error: ApiError | null }) {
  if (!error) return null;
  if (isDenied(error))
    return (
      <div className="form-error" role="alert">
        <p>{t('settings.deniedWrite')}</p>
      </div>
    );
  return <FormError error={error} />;
}

export function Saved({ show, text = 'settings.saved' }: { show: boolean; text?: MessageId }) {
  return (
    <div aria-live="polite">
      {show && (
        <p className="notice" role="status">
          {t(text)}
        </p>
      )}
    </div>
  );
}

/** ui.tsx's useSubmit, plus whether the last submit succeeded (for the "Saved." status). */
export function useSettingsSubmit(action: (values: Record<string, string>) => Promise<void>) {
  const [saved, setSaved] = useState(false);
  const form = useSubmit(async (values) => {
    setSaved(false);
    await action(values);
    setSaved(true);
  });
  return { ...form, saved: saved && !form.pending && !form.error };
}

/** A colour's swatch and its code. */
export function ColourChip({ color }: { color: string }) {
  return (
    <span className="colour-chip">
      <span className="colour-swatch" style={{ background: color }} aria-hidden="true" />
      <code>{color}</code>
    </span>
  );
}
