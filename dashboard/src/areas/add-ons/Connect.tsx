import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { errorText, FormError, Loading } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useCompleteOAuth, useConnectSecret, useDisconnect, useInstalled, useOAuthStart, when, type Addon } from './api';
import { addonPath } from './paths';
import { useDocumentTitle } from './title';
import './addons.css';
import { Section } from '../../ui/Section';
import { DisableIcon, EndpointIcon, OpenIcon } from '../../ui/icons';

/**
 * How the add-on reaches its provider (D29): for `secret`, a form of the manifest's fields
 * (all write-only: stored sealed, never shown again, so every one is a password input); for
 * `oauth2`, a button that sends the person to the provider. Either can be forgotten.
 */
export function ConnectSection({ addon }: { addon: Addon }) {
  if (!addon.connect) return null;
  return (
    <Section id="addon-connect" title={t('addOns.connect.title')} className="addons-section">
      <p data-testid="connect-status">
        {addon.connected && addon.connectedAt !== null ? t('addOns.connect.connectedAt', { when: when(addon.connectedAt) }) : t('addOns.connect.notConnected')}
      </p>
      {addon.connect.kind === 'secret' ? <SecretForm addon={addon} /> : <OAuthStart addon={addon} />}
      {addon.connected && <Disconnect addon={addon} />}
    </Section>
  );
}

function SecretForm({ addon }: { addon: Addon }) {
  const fields = addon.connect?.fields ?? [];
  const empty = () => Object.fromEntries(fields.map((f) => [f.name, '']));
  const [values, setValues] = useState<Record<string, string>>(empty);
  const id = useId();
  const connect = useConnectSecret(addon, { onSuccess: () => setValues(empty()) });
  const errors = connect.error instanceof ApiError ? connect.error.fieldErrors() : {};
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!connect.isPending) connect.mutate(values);
  };
  return (
    <form onSubmit={onSubmit} noValidate className="addons-settings" aria-label={t('addOns.connect.formLabel', { name: addon.name })}>
      <p className="hint">{addon.connected ? t('addOns.connect.secretReplace') : t('addOns.connect.secretIntro')}</p>
      {fields.map((f) => {
        const error = errors[`fields.${f.name}`];
        const described = [f.description ? `${id}-${f.name}-hint` : null, error ? `${id}-${f.name}-error` : null].filter(Boolean).join(' ') || undefined;
        return (
          <div className="field" key={f.name}>
            <label htmlFor={`${id}-${f.name}`}>{f.label}</label>
            {f.description && (
              <p className="hint" id={`${id}-${f.name}-hint`}>
                {f.description}
              </p>
            )}
            <input
              id={`${id}-${f.name}`}
              name={f.name}
              type="password"
              autoComplete="new-password"
              value={values[f.name] ?? ''}
              aria-invalid={error ? true : undefined}
              aria-describedby={described}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
            {error && (
              <p className="field-error" id={`${id}-${f.name}-error`}>
                {error}
              </p>
            )}
          </div>
        );
      })}
      <FormError error={connect.error} />
      {connect.isSuccess && (
        <p className="notice" role="status">
          {t('addOns.connect.saved')}
        </p>
      )}
      <button type="submit" disabled={connect.isPending}>
        <EndpointIcon className="icon" aria-hidden="true" />
        {connect.isPending ? t('addOns.connect.connecting') : t('addOns.connect.submit', { name: addon.name })}
      </button>
    </form>
  );
}

function OAuthStart({ addon }: { addon: Addon }) {
  // The provider sends the person back to /add-ons/{key}/connect/callback (AO15).
  const start = useOAuthStart(addon, { onSuccess: (started) => window.location.assign(started.authorizeUrl) });
  const scopes = addon.connect?.scopes ?? [];
  return (
    <>
      <p className="hint">{t('addOns.connect.oauthIntro')}</p>
      {scopes.length > 0 && <p>{t('addOns.connect.scopes', { scopes: scopes.join(', ') })}</p>}
      {start.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(start.error)}</p>
        </div>
      )}
      <button type="button" disabled={start.isPending || start.isSuccess} onClick={() => start.mutate()}>
        <OpenIcon className="icon" aria-hidden="true" />
        {addon.connected ? t('addOns.connect.oauthAgain', { name: addon.name }) : t('addOns.connect.oauth', { name: addon.name })}
      </button>
    </>
  );
}

function Disconnect({ addon }: { addon: Addon }) {
  const [asking, setAsking] = useState(false);
  const forget = useDisconnect(addon, { onSuccess: () => setAsking(false) });
  return (
    <div>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        <DisableIcon className="icon" aria-hidden="true" />
        {t('addOns.connect.disconnect', { name: addon.name })}
      </button>
      {asking && (
        <ConfirmDialog
          title={t('addOns.connect.disconnectTitle', { name: addon.name })}
          confirm={forget.isPending ? t('addOns.connect.disconnecting') : t('addOns.connect.disconnectConfirm')}
          cancel={t('addOns.remove.cancel')}
          pending={forget.isPending}
          onConfirm={() => forget.mutate()}
          onCancel={() => setAsking(false)}
        >
          <p>{addon.connect?.kind === 'oauth2' ? t('addOns.connect.disconnectOAuth') : t('addOns.connect.disconnectSecret')}</p>
          <FormError error={forget.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What the person reads when completing failed: the state's refusals in words, else the server's message. */
function failureText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'ADDON_OAUTH_STATE_EXPIRED') return t('addOns.callback.expired');
    if (error.code === 'ADDON_OAUTH_STATE_USED') return t('addOns.callback.used');
    if (error.code === 'ADDON_OAUTH_STATE_INVALID') return t('addOns.callback.invalid');
  }
  return errorText(error);
}

type Outcome = { status: 'pending' } | { status: 'done'; addon: Addon } | { status: 'failed'; text: string };

/**
 * Where the provider sends the person back (`redirect_uri`, AO15): posts the code and state,
 * then says whether the add-on is connected, with a way back to its page either way. The code
 * leaves the address bar at once (it is single use, and history should not keep it).
 */
export function ConnectCallback() {
  const params = useParams<{ key: string }>();
  const key = decodeURIComponent(params.key ?? '');
  const list = useInstalled();
  const complete = useCompleteOAuth();
  const name = list.data?.addons.find((a) => a.key === key)?.name ?? key;
  useDocumentTitle(t('addOns.callback.title', { name }));
  const [query] = useState(() => new URLSearchParams(window.location.search));
  const [outcome, setOutcome] = useState<Outcome>({ status: 'pending' });
  useEffect(() => {
    const code = query.get('code');
    const state = query.get('state');
    const denied = query.get('error');
    if (window.location.search) history.replaceState(history.state, '', window.location.pathname);
    if (denied) return setOutcome({ status: 'failed', text: t('addOns.callback.denied', { error: denied.slice(0, 100) }) });
    if (!code || !state) return setOutcome({ status: 'failed', text: t('addOns.callback.missing') });
    let live = true;
    complete(key, code, state).then(
      (addon) => {
        if (live) setOutcome({ status: 'done', addon });
      },
      (error: unknown) => live && setOutcome({ status: 'failed', text: failureText(error) }),
    );
    return () => {
      live = false;
    };
  }, [key, query]);

  return (
    <>
      <h1>{t('addOns.callback.title', { name })}</h1>
      {outcome.status === 'pending' && <Loading />}
      {outcome.status === 'done' && (
        <p className="notice" role="status">
          {t('addOns.callback.done', { name: outcome.addon.name })}
        </p>
      )}
      {outcome.status === 'failed' && (
        <div className="form-error" role="alert">
          <p>{outcome.text}</p>
          <p>{t('addOns.callback.again')}</p>
        </div>
      )}
      {outcome.status !== 'pending' && (
        <p>
          <Link href={addonPath(key)}>{t('addOns.callback.back', { name })}</Link>
        </p>
      )}
    </>
  );
}
