import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, NETWORK_ERROR } from './api/errors';
import { hasMessage, shownLocale, SOURCE_LOCALE, t, type MessageId } from './i18n/t';
import { fieldsNeedingAttention } from './ui/field-messages';
import { RefreshIcon } from './ui/icons';
import { useBranding } from './api/bootstrap';
import { productName, ProductMark, useBrandAccent } from './shell/branding';

// The form fields live in ui/Field.tsx; every screen imports them from here, as before.
export { Field, FieldFrame, SelectField } from './ui/Field';

/** Sets the document title for a screen. */
export function useTitle(screen: MessageId): void {
  const product = productName(useBranding());
  useEffect(() => {
    document.title = t('app.documentTitle', { screen: t(screen), product });
  }, [screen, product]);
}

/**
 * The text to show for any error: the server's message (English, the API's language) when English
 * is shown, else the catalogue's message for its code in the person's language (the `errors`
 * namespace, loaded with the shell for another language); ours when there was no envelope.
 */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === NETWORK_ERROR) return t('error.network');
    if (error.code.startsWith('CLIENT_')) return t('error.unexpected', { status: error.status });
    const translated = `errors.${error.code}`;
    if (shownLocale().locale !== SOURCE_LOCALE && hasMessage(translated)) return t(translated);
    return error.message;
  }
  return t('error.network');
}

export function Loading() {
  return (
    <p className="loading" role="status">
      {t('app.loading')}
    </p>
  );
}

/** The permission a 403 FORBIDDEN names (kernel/http/routes.ts and the plugins put it in `params.permission`). */
export function refusedPermission(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 403 || error.code !== 'FORBIDDEN') return undefined;
  return typeof error.params.permission === 'string' ? error.params.permission : '';
}

/** What a refusal says: the permission missing and who can grant it (decision DB38). */
export function RefusalText({ permission }: { permission: string | undefined }) {
  return (
    <>
      <p>{permission ? t('refusal.missing', { permission: permissionLabel(permission) }) : t('refusal.missingUnnamed')}</p>
      {permission && (
        <p className="hint refusal-id">
          <small>{t('refusal.permissionId', { id: permission })}</small>
        </p>
      )}
      <p>{t('refusal.whoGrants')}</p>
    </>
  );
}

/** A permission in words (the label its plugin declares, in the catalogue as `permission.<name>`); an add-on's own, without one, by its name. */
export function permissionLabel(permission: string): string {
  const id = `permission.${permission}`;
  return hasMessage(id) ? t(id) : permission;
}

/**
 * A failed read. A refusal (403 FORBIDDEN) is headed as one and names what is missing; asking
 * again would not change it, so it offers no retry.
 */
export function ErrorPanel({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const refused = refusedPermission(error);
  if (refused !== undefined)
    return (
      <div className="panel refusal" role="alert">
        <h2>{t('refusal.title')}</h2>
        <RefusalText permission={refused || undefined} />
      </div>
    );
  return (
    <div className="panel" role="alert">
      <h2>{t('error.title')}</h2>
      <p>{errorText(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          <RefreshIcon className="icon" aria-hidden="true" />
          {t('error.retry')}
        </button>
      )}
    </div>
  );
}

/** A card for the signed-out screens: product name, the screen's heading, its content. */
export function AuthCard({ title, message, children }: { title: MessageId; message?: boolean; children: ReactNode }) {
  useTitle(title);
  const branding = useBranding();
  // Signed out, the instance's colour is the accent (BR11).
  useBrandAccent();
  const signInMessage = message ? branding?.signInMessage : null;
  return (
    <div className="auth">
      <p className="brand" aria-hidden="true">
        <ProductMark branding={branding} />
        {productName(branding)}
      </p>
      <main id="main" className="card" tabIndex={-1}>
        <h1>{t(title)}</h1>
        {signInMessage && (
          <p className="auth-message" data-testid="sign-in-message">
            {signInMessage}
          </p>
        )}
        {children}
      </main>
    </div>
  );
}

export interface FormState {
  pending: boolean;
  error: ApiError | null;
  fields: Record<string, string>;
}

/**
 * A form's submit: the values as strings, one call at a time, the error kept for the form (its
 * message) and its fields (the server's `issues`). The browser's own validation is off
 * (`noValidate`) so the server's rules and messages are the only ones.
 */
export function useSubmit(action: (values: Record<string, string>) => Promise<void>) {
  const [state, setState] = useState<FormState>({ pending: false, error: null, fields: {} });
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (state.pending) return;
    const values: Record<string, string> = {};
    for (const [key, value] of new FormData(event.currentTarget)) if (typeof value === 'string') values[key] = value;
    setState({ pending: true, error: null, fields: {} });
    try {
      await action(values);
      setState({ pending: false, error: null, fields: {} });
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError(0, NETWORK_ERROR, String(err));
      setState({ pending: false, error, fields: error.fieldErrors() });
    }
  };
  return { ...state, onSubmit };
}

/** The form-level message of a failed submit. */
/** A form's failure, whatever was thrown: the API's message and its field count, or a network failure. */
export function FormError({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const issues = error instanceof ApiError ? fieldsNeedingAttention(error) : 0;
  return (
    <div className="form-error" role="alert">
      <p>{errorText(error)}</p>
      {issues > 0 && <p>{t('error.formSummary', { count: issues })}</p>}
    </div>
  );
}
