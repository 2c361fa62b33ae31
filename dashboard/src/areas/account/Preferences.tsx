import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { t, type MessageId } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import {
  ACCENT_LABEL,
  ACCENTS,
  applyLook,
  DENSITIES,
  DENSITY_LABEL,
  DIR_LABEL,
  DIRS,
  useLocaleChoices,
  THEME_LABEL,
  THEMES,
  type PrefKey,
} from '../../shell/prefs';
import { useNotificationPrefs, usePrefs, useSaveNotificationPrefs, useSavePrefs, type Prefs, type PrefsData } from './api';
import { kindLabel } from './notifications';
import { browserTimeZone, knownTimeZones } from '../../values/format';
import { setPreferredTimeZone, usePreferredTimeZone } from '../../values/context';
import '../../shell/shell.css';
import { Section } from '../../ui/Section';
import { PageHeader } from '../../ui/PageHeader';
import { NotificationsIcon, PreferencesIcon, SaveIcon } from '../../ui/icons';

/**
 * /account/preferences: the person's look (theme, accent, density, locale, direction), saved and
 * applied as soon as it is chosen, the time zone this browser shows values in (kept in the browser,
 * ME8), and which notifications they receive.
 */
export function Preferences() {
  useTitle('prefs.title');
  const prefs = usePrefs();
  return (
    <>
      <Breadcrumbs items={[{ label: t('breadcrumbs.account') }, { label: t('prefs.title') }]} />
      <PageHeader title={t('prefs.title')} description={t('prefs.intro')} />
      {prefs.isPending ? <Loading /> : prefs.isError ? <ErrorPanel error={prefs.error} onRetry={() => void prefs.refetch()} /> : <LookForm data={prefs.data} />}
      <NotificationPrefsForm />
    </>
  );
}

function LookForm({ data }: { data: PrefsData }) {
  const [last, setLast] = useState<'field' | 'reset'>('field');
  // What was just chosen, shown at once: the optimistic update (useSavePrefs) waits for a read in flight
  // to be cancelled, and a controlled radio must not flip back for that moment.
  const [picked, setPicked] = useState<Partial<Record<PrefKey, string>>>({});
  const save = useSavePrefs(applyLook, {
    onSettled: (_answer, _err, patch) =>
      setPicked((now) => Object.fromEntries(Object.entries(now).filter(([key]) => !(key in patch))) as Partial<Record<PrefKey, string>>),
  });
  const set = (key: PrefKey, value: string) => {
    setLast('field');
    setPicked((now) => ({ ...now, [key]: value }));
    save.mutate({ [key]: value } as Partial<Prefs>);
  };
  const resolved = { ...data.resolved, ...picked } as typeof data.resolved;
  const locales = useLocaleChoices(resolved.locale);

  return (
    <Section id="prefs-look" icon={PreferencesIcon} title={t('prefs.lookTitle')} className="prefs-section">
      <Choice
        legend="prefs.theme"
        name="theme"
        options={THEMES}
        labels={THEME_LABEL}
        value={resolved.theme}
        source={resolved.source.theme}
        onChange={(v) => set('theme', v)}
      />
      <SelectChoice
        label="prefs.accent"
        options={ACCENTS.map((a) => ({ value: a, label: t(ACCENT_LABEL[a]) }))}
        value={resolved.accent}
        source={resolved.source.accent}
        onChange={(v) => set('accent', v)}
      />
      <Choice
        legend="prefs.density"
        name="density"
        options={DENSITIES}
        labels={DENSITY_LABEL}
        value={resolved.density}
        source={resolved.source.density}
        onChange={(v) => set('density', v)}
      />
      <SelectChoice
        label="prefs.locale"
        hint="prefs.localeHint"
        options={locales}
        value={resolved.locale}
        source={resolved.source.locale}
        onChange={(v) => set('locale', v)}
      />
      <Choice
        legend="prefs.dir"
        name="dir"
        options={DIRS}
        labels={DIR_LABEL}
        value={resolved.dir}
        source={resolved.source.dir}
        onChange={(v) => set('dir', v)}
      />
      <TimeZoneChoice />
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={save.isPending}
          onClick={() => {
            setLast('reset');
            // The zone has no instance default: cleared, this browser's own applies.
            setPreferredTimeZone(null);
            save.mutate({ theme: null, accent: null, density: null, locale: null, dir: null });
          }}
        >
          {t('prefs.reset')}
        </button>
      </div>
      <div className="outcome" aria-live="polite">
        {save.isPending && <p role="status">{t('prefs.saving')}</p>}
        {save.isSuccess && (
          <p className="notice" role="status">
            {last === 'reset' ? t('prefs.resetDone') : t('prefs.saved')}
          </p>
        )}
      </div>
      {save.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(save.error)}</p>
        </div>
      )}
    </Section>
  );
}

function Choice<V extends string>(props: {
  legend: MessageId;
  name: string;
  options: readonly V[];
  labels: Record<V, MessageId>;
  value: string;
  source: string;
  onChange: (value: V) => void;
}) {
  const id = useId();
  return (
    <fieldset className="choice" aria-describedby={`${id}-source`}>
      <legend>{t(props.legend)}</legend>
      <div className="choice-options">
        {props.options.map((option) => (
          <label key={option}>
            <input type="radio" name={props.name} value={option} checked={props.value === option} onChange={() => props.onChange(option)} />
            {t(props.labels[option])}
          </label>
        ))}
      </div>
      <p className="hint" id={`${id}-source`}>
        {t('prefs.source', { source: props.source })}
      </p>
    </fieldset>
  );
}

function SelectChoice(props: {
  label: MessageId;
  hint?: MessageId;
  options: Array<{ value: string; label: string; lang?: string }>;
  value: string;
  source: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{t(props.label)}</label>
      {props.hint && (
        <p className="hint" id={`${id}-hint`}>
          {t(props.hint)}
        </p>
      )}
      <select
        id={id}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        aria-describedby={[props.hint ? `${id}-hint` : '', `${id}-source`].join(' ').trim()}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value} lang={o.lang?.replace(/_/g, '-')}>
            {o.label}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-source`}>
        {t('prefs.source', { source: props.source })}
      </p>
    </div>
  );
}

/**
 * The zone values are shown in (ME8), kept in this browser: the seed's preferences have no place
 * for it. A search over the zones this browser knows (an input with their list, so typing "Paris"
 * finds Europe/Paris), or none, when the browser's own zone applies.
 */
function TimeZoneChoice() {
  const id = useId();
  const chosen = usePreferredTimeZone();
  const browser = browserTimeZone();
  const zones = useMemo(() => knownTimeZones(chosen ?? ''), [chosen]);
  const [draft, setDraft] = useState(chosen ?? '');
  const [unknown, setUnknown] = useState(false);
  const [kept, setKept] = useState(false);
  useEffect(() => setDraft(chosen ?? ''), [chosen]);
  const choose = (zone: string | null) => {
    const ok = setPreferredTimeZone(zone);
    setUnknown(!ok);
    setKept(ok);
    if (ok) setDraft(zone ?? '');
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const typed = draft.trim();
    if (!typed) return choose(null);
    const zone = zones.find((z) => z.toLowerCase() === typed.toLowerCase());
    if (!zone) {
      setUnknown(true);
      setKept(false);
      return;
    }
    choose(zone);
  };
  const described = [`${id}-hint`, unknown ? `${id}-error` : '', `${id}-source`].filter(Boolean).join(' ');
  return (
    <form className="field" onSubmit={submit} noValidate>
      <label htmlFor={id}>{t('prefs.timeZone')}</label>
      <p className="hint" id={`${id}-hint`}>
        {t('prefs.timeZoneHint')}
      </p>
      <input
        id={id}
        list={`${id}-zones`}
        value={draft}
        placeholder={t('prefs.timeZoneBrowser', { zone: browser })}
        onChange={(e) => {
          setDraft(e.currentTarget.value);
          setKept(false);
        }}
        aria-invalid={unknown || undefined}
        aria-describedby={described}
        autoComplete="off"
        spellCheck={false}
      />
      <datalist id={`${id}-zones`}>
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      {unknown && (
        <p className="field-error" id={`${id}-error`}>
          {t('prefs.timeZoneUnknown')}
        </p>
      )}
      <p className="hint" id={`${id}-source`}>
        {chosen === null ? t('prefs.timeZoneFollowsBrowser', { zone: browser }) : t('prefs.timeZoneChosen')}
      </p>
      <div className="actions">
        <button type="submit">{t('prefs.timeZoneUse')}</button>
        {chosen !== null && (
          <button type="button" className="secondary" onClick={() => choose(null)}>
            {t('prefs.timeZoneUseBrowser')}
          </button>
        )}
      </div>
      <div className="outcome" aria-live="polite">
        {kept && (
          <p className="notice" role="status">
            {t('prefs.timeZoneKept')}
          </p>
        )}
      </div>
    </form>
  );
}

function NotificationPrefsForm() {
  const query = useNotificationPrefs();
  const save = useSaveNotificationPrefs();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!query.data) return;
    const form = new FormData(event.currentTarget);
    save.mutate(query.data.map((p) => ({ kind: p.kind, inApp: form.has(`inApp:${p.kind}`), email: form.has(`email:${p.kind}`) })));
  };
  return (
    <Section id="prefs-notifications" icon={NotificationsIcon} title={t('notifPrefs.title')} description={t('notifPrefs.intro')} className="prefs-section">
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <p>{t('notifPrefs.empty')}</p>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          {/* Keyed by the stored answer so the boxes show what the server kept after a save. */}
          <div key={JSON.stringify(query.data)}>
            {query.data.map((p) => (
              <fieldset key={p.kind} className="choice">
                <legend>{kindLabel(p.kind)}</legend>
                <div className="choice-options">
                  <label>
                    <input type="checkbox" name={`inApp:${p.kind}`} defaultChecked={p.inApp} />
                    {t('notifPrefs.inApp')}
                  </label>
                  <label>
                    <input type="checkbox" name={`email:${p.kind}`} defaultChecked={p.email} />
                    {t('notifPrefs.email')}
                  </label>
                </div>
              </fieldset>
            ))}
          </div>
          {save.isError && (
            <div className="form-error" role="alert">
              <p>{errorText(save.error)}</p>
            </div>
          )}
          <button type="submit" disabled={save.isPending}>
            <SaveIcon className="icon" aria-hidden="true" />
            {save.isPending ? t('notifPrefs.saving') : t('notifPrefs.save')}
          </button>
          {save.isSuccess && (
            <p className="notice" role="status">
              {t('notifPrefs.saved')}
            </p>
          )}
        </form>
      )}
    </Section>
  );
}
