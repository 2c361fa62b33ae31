import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Field, FormError, Loading, useTitle } from '../../ui';
import { useAppNames, useCreateKey, useKeyAction, useKeys, useScopes, type PublicKey, type Scope } from './api';
import { PublicApiHeader, when } from './shared';
import { SecretOnce } from '../../ui/SecretOnce';
import { Section } from '../../ui/Section';
import { Badge } from '../../ui/Badge';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { EmptyState } from '../../ui/EmptyState';
import { AddIcon, ApiKeysIcon, PreviewIcon, RefreshIcon, RevokeIcon } from '../../ui/icons';

type Method = Scope['methods'][number];
const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH'];

/** A secret the server just handed over (create, reveal, rotate): shown until the person moves on. */
interface Shown {
  name: string;
  kind: 'browser' | 'server';
  secret: string;
  why: 'created' | 'revealed' | 'rotated';
}

/** Every key (not revoked): kind, grants, expiry, requests in the last 24 hours; create, reveal, rotate, revoke. */
export function Keys() {
  useTitle('publicApi.keys.title');
  const apps = useAppNames();
  const list = useKeys();
  const [shown, setShown] = useState<Shown | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const outcome = useRef<HTMLDivElement>(null);
  const [moved, setMoved] = useState(0);
  useEffect(() => {
    if (moved) outcome.current?.focus();
  }, [moved]);
  const report = (next: { shown?: Shown | null; failure?: unknown; revoked?: string | null }) => {
    setShown(next.shown ?? null);
    setFailure(next.failure ?? null);
    setRevoked(next.revoked ?? null);
    setMoved((n) => n + 1);
  };

  const act = useKeyAction({
    onSuccess: ({ key, action, secret }) => {
      if (secret !== null) report({ shown: { name: key.name, kind: key.kind, secret, why: action === 'reveal' ? 'revealed' : 'rotated' } });
      else report({ revoked: key.name });
    },
    onError: (error) => report({ failure: error }),
  });

  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  const appName = (key: string) => apps.data?.get(key) ?? key;

  return (
    <>
      <PublicApiHeader
        title={t('publicApi.keys.title')}
        description={t('publicApi.keys.intro')}
        actions={
          <a href="#pa-create-key" className="button">
            <AddIcon className="icon" aria-hidden="true" />
            {t('publicApi.keys.create.title')}
          </a>
        }
      />
      <div ref={outcome} tabIndex={-1} className="outcome">
        {failure !== null && (
          <div className="form-error" role="alert">
            <p>{errorText(failure)}</p>
          </div>
        )}
        {revoked !== null && (
          <p className="notice" role="status">
            {t('publicApi.keys.revoked', { name: revoked })}
          </p>
        )}
        {shown && (
          <SecretOnce
            title={t(`publicApi.keys.secret.${shown.why}`, { name: shown.name })}
            label={t('publicApi.keys.secret.label', { name: shown.name })}
            secret={shown.secret}
            note={shown.kind === 'server' ? t('publicApi.keys.secret.serverOnce') : t('publicApi.keys.secret.browserAgain')}
            hide={t('publicApi.keys.secret.hide')}
            testId="key-secret"
            onDone={() => setShown(null)}
          />
        )}
      </div>
      <Section plain id="pa-key-list" icon={ApiKeysIcon} title={t('publicApi.keys.listTitle')}>
        {list.data.length === 0 ? (
          <EmptyState icon={ApiKeysIcon}>{t('publicApi.keys.empty')}</EmptyState>
        ) : (
          <ul className="pa-keys">
            {list.data.map((key) => (
              <KeyItem key={key.id} item={key} appName={appName} pending={act.isPending} onAct={(action) => act.mutate({ key, action })} />
            ))}
          </ul>
        )}
      </Section>
      <CreateKey onCreated={(s) => report({ shown: s })} />
    </>
  );
}

function KeyItem({
  item,
  appName,
  pending,
  onAct,
}: {
  item: PublicKey;
  appName: (key: string) => string;
  pending: boolean;
  onAct: (action: 'reveal' | 'rotate' | 'revoke') => void;
}) {
  const [confirm, setConfirm] = useState<'rotate' | 'revoke' | null>(null);
  const kind = item.appKey ? t('publicApi.keys.kind.app') : t(`publicApi.keys.kind.${item.kind}`);
  return (
    <li className="pa-key" data-testid="key">
      <p className="pa-key-head">
        <strong>{item.name}</strong>{' '}
        <Badge tone="accent" dot={false}>
          {kind}
        </Badge>
        {item.expired && (
          <>
            {' '}
            <Badge tone="danger">{t('publicApi.keys.expired')}</Badge>
          </>
        )}
      </p>
      <dl className="pa-facts">
        <dt>{t('publicApi.keys.prefix')}</dt>
        <dd>
          <code>{item.prefix}</code>
        </dd>
        {item.appKey && (
          <>
            <dt>{t('publicApi.keys.app')}</dt>
            <dd>{appName(item.appKey.addonKey)}</dd>
          </>
        )}
        <dt>{t('publicApi.keys.grants')}</dt>
        <dd>
          <ul className="pa-grants">
            {item.grants.map((g) => (
              <li key={g.ref}>
                <code>{g.ref}</code> {g.methods.join(', ')}
              </li>
            ))}
          </ul>
        </dd>
        <dt>{t('publicApi.keys.expires')}</dt>
        <dd>{item.expiresAt === null ? t('publicApi.keys.never') : when(item.expiresAt)}</dd>
        <dt>{t('publicApi.keys.usage')}</dt>
        <dd data-testid="key-usage">{t('publicApi.keys.usageValue', { count: item.requests24h })}</dd>
        <dt>{t('publicApi.keys.created')}</dt>
        <dd>{when(item.createdAt)}</dd>
      </dl>
      {item.appKey && <p className="hint">{t('publicApi.keys.appOwned', { app: appName(item.appKey.addonKey) })}</p>}
      {item.suspended && <p className="hint">{t('publicApi.keys.suspended')}</p>}
      {!item.revealable && !item.appKey && <p className="hint">{t('publicApi.keys.notRevealable')}</p>}
      <div className="actions">
        {item.revealable && (
          <button type="button" disabled={pending} onClick={() => onAct('reveal')} aria-label={t('publicApi.keys.revealLabel', { name: item.name })}>
            <PreviewIcon className="icon" aria-hidden="true" />
            {t('publicApi.keys.reveal')}
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={pending}
          onClick={() => setConfirm('rotate')}
          aria-label={t('publicApi.keys.rotateLabel', { name: item.name })}
        >
          <RefreshIcon className="icon" aria-hidden="true" />
          {t('publicApi.keys.rotate')}
        </button>
        {!item.appKey && (
          <button
            type="button"
            className="secondary"
            disabled={pending}
            onClick={() => setConfirm('revoke')}
            aria-label={t('publicApi.keys.revokeLabel', { name: item.name })}
          >
            <RevokeIcon className="icon" aria-hidden="true" />
            {t('publicApi.keys.revoke')}
          </button>
        )}
      </div>
      {confirm && (
        <ConfirmDialog
          title={t(confirm === 'rotate' ? 'publicApi.keys.rotateLabel' : 'publicApi.keys.revokeLabel', { name: item.name })}
          confirm={t(confirm === 'rotate' ? 'publicApi.keys.rotate' : 'publicApi.keys.revoke')}
          cancel={t('publicApi.cancel')}
          pending={pending}
          onConfirm={() => (onAct(confirm), setConfirm(null))}
          onCancel={() => setConfirm(null)}
        >
          <p>{t(`publicApi.keys.confirm.${confirm}`, { name: item.name })}</p>
        </ConfirmDialog>
      )}
    </li>
  );
}

interface GrantRow {
  ref: string;
  methods: Method[];
}

/** A new key: name, browser or server, lifetime, and the endpoints it may use with which methods. */
function CreateKey({ onCreated }: { onCreated: (shown: Shown) => void }) {
  const id = useId();
  const scopes = useScopes();
  const grantable = (scopes.data ?? []).filter((s) => !s.addonKey && s.methods.length > 0);
  const [kind, setKind] = useState<'browser' | 'server'>('browser');
  const [expires, setExpires] = useState<'30d' | '90d' | 'never'>('90d');
  const [grants, setGrants] = useState<GrantRow[]>([{ ref: '', methods: ['GET'] }]);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateKey({
    onSuccess: ({ key, secret }) => {
      onCreated({ name: key.name, kind: key.kind, secret, why: 'created' });
      setGrants([{ ref: '', methods: ['GET'] }]);
      setFormKey((k) => k + 1);
    },
  });
  const error = create.error instanceof ApiError ? create.error : null;
  const fields = error?.fieldErrors() ?? {};
  const grantError = (n: number) =>
    Object.entries(fields)
      .filter(([path]) => path === `grants.${n}` || path.startsWith(`grants.${n}.`))
      .map(([, message]) => message)[0];
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '');
    create.mutate({ name, kind, expires, grants: grants.map((g) => ({ ref: g.ref || grantable[0]?.ref || '', methods: g.methods })) });
  };

  return (
    <Section id="pa-create-key" icon={AddIcon} title={t('publicApi.keys.create.title')} className="pa-card">
      <form noValidate onSubmit={onSubmit} key={formKey}>
        <FormError error={error} />
        <Field label="publicApi.keys.create.name" name="name" autoComplete="off" error={fields.name} />
        <fieldset className="pa-group">
          <legend>{t('publicApi.keys.create.kind')}</legend>
          {(['browser', 'server'] as const).map((k) => (
            <label key={k} className="pa-check">
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
              {t(`publicApi.keys.kind.${k}`)} <span className="pa-muted">{t(`publicApi.keys.kindHint.${k}`)}</span>
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-expires`}>{t('publicApi.keys.create.expires')}</label>
          <select id={`${id}-expires`} value={expires} onChange={(e) => setExpires(e.target.value as typeof expires)}>
            {(['30d', '90d', 'never'] as const).map((e) => (
              <option key={e} value={e}>
                {t(`publicApi.keys.lifetime.${e}`)}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="pa-group">
          <legend>{t('publicApi.keys.create.grants')}</legend>
          <p className="hint">{t('publicApi.keys.create.grantsHint')}</p>
          {fields.grants && <p className="field-error">{fields.grants}</p>}
          {grants.map((g, n) => {
            const scope = grantable.find((s) => s.ref === g.ref) ?? (g.ref ? undefined : grantable[0]);
            const ref = g.ref || scope?.ref || '';
            const problem = grantError(n);
            const set = (row: GrantRow) => setGrants(grants.map((x, k) => (k === n ? row : x)));
            return (
              <div key={n} className="pa-grant" data-testid="grant-row">
                <div className="field">
                  <label htmlFor={`${id}-grant-${n}`}>{t('publicApi.keys.create.endpoint', { n: n + 1 })}</label>
                  <select
                    id={`${id}-grant-${n}`}
                    value={ref}
                    onChange={(e) => set({ ref: e.target.value, methods: g.methods })}
                    aria-invalid={problem ? true : undefined}
                    aria-describedby={problem ? `${id}-grant-${n}-error` : undefined}
                  >
                    {grantable.map((s) => (
                      <option key={s.ref} value={s.ref}>
                        {s.ref}
                      </option>
                    ))}
                  </select>
                </div>
                <fieldset className="pa-checks">
                  <legend>{t('publicApi.keys.create.methodsOf', { ref })}</legend>
                  {METHODS.map((m) => (
                    <label key={m} className="pa-check">
                      <input
                        type="checkbox"
                        disabled={scope ? !scope.methods.includes(m) : false}
                        checked={g.methods.includes(m)}
                        onChange={(e) => set({ ref, methods: e.target.checked ? [...g.methods, m] : g.methods.filter((x) => x !== m) })}
                      />
                      {m}
                    </label>
                  ))}
                </fieldset>
                {problem && (
                  <p className="field-error" id={`${id}-grant-${n}-error`}>
                    {problem}
                  </p>
                )}
                {grants.length > 1 && (
                  <button type="button" className="secondary" onClick={() => setGrants(grants.filter((_, k) => k !== n))}>
                    {t('publicApi.keys.create.removeGrant', { n: n + 1 })}
                  </button>
                )}
              </div>
            );
          })}
          <button type="button" className="secondary" onClick={() => setGrants([...grants, { ref: '', methods: ['GET'] }])}>
            {t('publicApi.keys.create.addGrant')}
          </button>
        </fieldset>
        <button type="submit" disabled={create.isPending || grantable.length === 0}>
          {create.isPending ? t('publicApi.keys.create.submitting') : t('publicApi.keys.create.submit')}
        </button>
      </form>
    </Section>
  );
}
