import { useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, FormError, Loading } from '../../ui';
import { connectionName, useConfirmPlan, useConnections, useInstalled, usePlan, type AddonPlan } from './api';
import { addonPath } from './paths';
import { PlanView } from './PlanView';
import { useDocumentTitle } from './title';
import './addons.css';
import { BackLink } from '../../ui/BackLink';
import { PageHeader } from '../../ui/PageHeader';
import { CheckIcon } from '../../ui/icons';

/** The value of the "none" option of a list (not a text a person reads). */
const NONE = '';

/** What the add-on page says after the plan screen carried out an install or upgrade. */
export type Outcome = { outcome: 'installed' | 'upgraded'; version: string };

/**
 * The plan of installing (onto a chosen connection) or upgrading to a staged version, read
 * before anything happens, and its confirmation with the hash of the plan shown. When the plan
 * changed meanwhile (409 ADDON_PLAN_CHANGED) the new plan is shown and asked for again.
 */
export function Plan() {
  const params = useParams<{ key: string; version: string }>();
  const key = decodeURIComponent(params.key ?? '');
  const version = decodeURIComponent(params.version ?? '');
  const list = useInstalled();
  const connections = useConnections();
  const installed = list.data?.addons.find((a) => a.key === key) ?? null;
  const staged = list.data?.staged.find((s) => s.key === key && s.version === version) ?? null;
  const name = installed?.name ?? staged?.name ?? key;
  const upgrade = installed !== null;
  const title = upgrade ? t('addOns.plan.upgradeTitle', { name, from: installed.version, to: version }) : t('addOns.plan.installTitle', { name, version });
  useDocumentTitle(title);

  // The connection the tables go on is the operator's choice (AO33): chosen for them only when a
  // single connection can take tables; otherwise the plan waits for the pick.
  const [picked, setPicked] = useState<string | null>(null);
  const writable = (connections.data ?? []).filter((c) => !c.readOnly);
  // An add-on installed without tables has no connection: an upgrade bringing tables picks one (AO21).
  const needsConnection = !upgrade || installed.connectionId === null;
  const connectionId = needsConnection ? (picked ?? (writable.length === 1 ? writable[0]!.id : null)) : null;
  const plan = usePlan(key, version, connectionId, list.isSuccess && (!needsConnection || connections.isSuccess));
  // Without a connection the plan of an add-on with tables is refused: the page asks for the pick instead.
  const mustChoose = connectionId === null && plan.error instanceof ApiError && plan.error.code === 'ADDON_CONNECTION_REQUIRED';

  if (list.isPending || (needsConnection && connections.isPending)) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  if (connections.isError && needsConnection) return <ErrorPanel error={connections.error} onRetry={() => void connections.refetch()} />;

  return (
    <>
      <BackLink href="/add-ons">{t('addOns.backToList')}</BackLink>
      <PageHeader title={title} description={upgrade ? t('addOns.plan.upgradeIntro') : t('addOns.plan.installIntro')} />
      {(!upgrade || mustChoose || (needsConnection && (plan.data?.tables.length ?? 0) > 0)) && (
        <ConnectionPicker connections={connections.data ?? []} value={connectionId} mustChoose={mustChoose} onChange={setPicked} />
      )}
      {plan.isPending ? (
        <Loading />
      ) : mustChoose ? (
        <p className="hint" data-testid="choose-connection">
          {t('addOns.plan.chooseFirst')}
        </p>
      ) : plan.isError ? (
        <div className="form-error" role="alert">
          <p>{errorText(plan.error)}</p>
        </div>
      ) : (
        <Confirm
          plan={plan.data}
          name={name}
          upgrade={upgrade}
          version={version}
          connectionName={connectionName(connections.data ?? [], plan.data.connectionId)}
        />
      )}
    </>
  );
}

function ConnectionPicker({
  connections,
  value,
  mustChoose,
  onChange,
}: {
  connections: ReadonlyArray<{ id: string; name: string; dialect: string; readOnly: boolean }>;
  value: string | null;
  /** The add-on has tables and no connection is chosen yet: the empty choice asks for one rather than offering none. */
  mustChoose: boolean;
  onChange: (id: string) => void;
}) {
  const id = useId();
  return (
    <div className="field addons-connection">
      <label htmlFor={id}>{t('addOns.plan.connection')}</label>
      <p className="hint" id={`${id}-hint`}>
        {t('addOns.plan.connectionHint')}
      </p>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.target.value)} aria-describedby={`${id}-hint`}>
        <option value={NONE} disabled={mustChoose}>
          {mustChoose ? t('addOns.plan.choosePlaceholder') : t('addOns.connection.none')}
        </option>
        {connections.map((c) => (
          <option key={c.id} value={c.id} disabled={c.readOnly}>
            {c.readOnly
              ? t('addOns.plan.connectionReadOnly', { name: c.name, dialect: c.dialect })
              : t('addOns.plan.connectionOption', { name: c.name, dialect: c.dialect })}
          </option>
        ))}
      </select>
      {connections.length === 0 && (
        <p className="hint">
          <Link href="/connections">{t('addOns.plan.noConnections')}</Link>
        </p>
      )}
    </div>
  );
}

function Confirm({
  plan,
  name,
  upgrade,
  version,
  connectionName,
}: {
  plan: AddonPlan;
  name: string;
  upgrade: boolean;
  version: string;
  connectionName: string;
}) {
  const [, navigate] = useLocation();
  const [allowDestructive, setAllowDestructive] = useState(false);
  const [changedFrom, setChangedFrom] = useState<string | null>(null);
  const [settings, setSettings] = useState<Record<string, string | boolean>>({});
  const required = upgrade ? [] : plan.settings.filter((s) => s.required);
  const destructiveId = useId();
  const alert = useRef<HTMLDivElement>(null);

  const confirm = useConfirmPlan({
    onSuccess: () => {
      const state: Outcome = { outcome: upgrade ? 'upgraded' : 'installed', version };
      navigate(addonPath(plan.key), { state });
    },
    // What was read is no longer what would happen: the new plan is shown and asked for again.
    onError: (error, c) => {
      if (error instanceof ApiError && error.code === 'ADDON_PLAN_CHANGED') setChangedFrom(c.body.planHash);
    },
  });
  const confirmPlan = (hash: string) => {
    const connection = plan.connectionId ? { connectionId: plan.connectionId } : {};
    if (upgrade) {
      confirm.mutate({
        upgrade: true,
        key: plan.key,
        body: { version, planHash: hash, ...connection, ...(allowDestructive ? { allowDestructive: true } : {}) },
      });
      return;
    }
    const given = requiredInput(required, settings);
    confirm.mutate({
      upgrade: false,
      body: { key: plan.key, version, planHash: hash, ...connection, ...(Object.keys(given).length ? { settings: given } : {}) },
    });
  };
  const stale = changedFrom !== null && changedFrom !== plan.hash;
  const settled = confirm.isError ? confirm.submittedAt : 0;
  useEffect(() => {
    if (settled) alert.current?.focus();
  }, [settled]);

  const blocked = plan.destructive && !allowDestructive;
  return (
    <>
      <div ref={alert} tabIndex={-1} className="outcome">
        {confirm.isError &&
          (confirm.error instanceof ApiError && confirm.error.code === 'ADDON_PLAN_CHANGED' ? (
            <div className="form-error" role="alert">
              <p>{t('addOns.plan.changed')}</p>
            </div>
          ) : (
            <FormError error={confirm.error} />
          ))}
      </div>
      <h2>{stale ? t('addOns.plan.newPlan') : t('addOns.plan.whatItDoes')}</h2>
      <PlanView plan={plan} />
      <div className="addons-confirm">
        {required.length > 0 && (
          <RequiredSettings
            fields={required}
            values={settings}
            errors={confirm.error instanceof ApiError ? confirm.error.fieldErrors() : {}}
            onChange={(name, value) => setSettings((v) => ({ ...v, [name]: value }))}
          />
        )}
        {plan.destructive && (
          <div className="addons-check">
            <input id={destructiveId} type="checkbox" checked={allowDestructive} onChange={(e) => setAllowDestructive(e.target.checked)} />
            <label htmlFor={destructiveId}>{t('addOns.plan.allowDestructive')}</label>
          </div>
        )}
        <button type="button" disabled={confirm.isPending || blocked} onClick={() => confirmPlan(plan.hash)}>
          <CheckIcon className="icon" aria-hidden="true" />
          {confirm.isPending
            ? upgrade
              ? t('addOns.plan.upgrading')
              : t('addOns.plan.installing')
            : upgrade
              ? t('addOns.plan.upgrade', { name, version })
              : plan.connectionId
                ? t('addOns.plan.install', { name, version, connection: connectionName })
                : t('addOns.plan.installNoConnection', { name, version })}
        </button>
      </div>
    </>
  );
}

type PlanSetting = AddonPlan['settings'][number];

/** The required settings typed on the plan screen, as POST /add-ons takes them (an empty one is left to its default). */
function requiredInput(fields: readonly PlanSetting[], values: Record<string, string | boolean>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.type === 'boolean') out[f.name] = v === true;
    else if (typeof v === 'string' && v !== '') out[f.name] = f.type === 'string' || !Number.isFinite(Number(v)) ? v : Number(v);
  }
  return out;
}

/**
 * The settings an install cannot do without (the plan lists which are required). The others,
 * and the rules of each, are on the add-on's page once it is installed.
 */
function RequiredSettings({
  fields,
  values,
  errors,
  onChange,
}: {
  fields: readonly PlanSetting[];
  values: Record<string, string | boolean>;
  errors: Record<string, string>;
  onChange: (name: string, value: string | boolean) => void;
}) {
  const id = useId();
  return (
    <fieldset className="addons-choice">
      <legend>{t('addOns.plan.requiredSettings')}</legend>
      <p className="hint">{t('addOns.plan.requiredSettingsHint')}</p>
      {fields.map((f) => {
        const fid = `${id}-${f.name}`;
        const error = errors[`settings.${f.name}`];
        const common = { id: fid, name: f.name, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? `${fid}-error` : undefined } as const;
        return (
          <div key={f.name} className={f.type === 'boolean' ? 'field addons-check' : 'field'}>
            {f.type === 'boolean' ? (
              <>
                <input {...common} type="checkbox" checked={values[f.name] === true} onChange={(e) => onChange(f.name, e.target.checked)} />
                <label htmlFor={fid}>{f.name}</label>
              </>
            ) : (
              <>
                <label htmlFor={fid}>{f.secret ? t('addOns.plan.secretSetting', { name: f.name }) : f.name}</label>
                <input
                  {...common}
                  type={f.secret ? 'password' : f.type === 'string' ? 'text' : 'number'}
                  autoComplete={f.secret ? 'new-password' : 'off'}
                  value={String(values[f.name] ?? '')}
                  onChange={(e) => onChange(f.name, e.target.value)}
                />
              </>
            )}
            {error && (
              <p className="field-error" id={`${fid}-error`}>
                {error}
              </p>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
