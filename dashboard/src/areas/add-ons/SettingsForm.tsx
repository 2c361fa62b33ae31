import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { FormError } from '../../ui';
import { useSaveSettings, type Addon, type SettingField, type SettingsInput } from './api';
import { OpeningHoursInput, timeZoneOptions } from './OpeningHours';

/** The value of the "none" option of a list (not a text a person reads). */
const NONE = '';

export type Values = Record<string, string | boolean>;
/** What a settings form edits: the values as the server has them, secrets left out (`secretsSet` says which hold one). */
export type SettingsState = { settings: Record<string, unknown>; secretsSet: readonly string[] };

/** The form's starting values: the saved values (secrets never: their inputs start empty). */
export function initialValues(fields: readonly SettingField[], settings: Record<string, unknown>): Values {
  const out: Values = {};
  for (const f of fields) {
    if (f.secret) out[f.name] = '';
    else if (f.type === 'boolean') out[f.name] = settings[f.name] === true;
    else out[f.name] = settings[f.name] === undefined ? '' : String(settings[f.name]);
  }
  return out;
}

/**
 * What the server gets: typed values, null to clear, and a secret only when a new one was typed
 * (or cleared). With `from`, only the settings whose value differs from it are sent.
 */
export function toSettingsInput(fields: readonly SettingField[], values: Values, clear: ReadonlySet<string>, from?: Values): SettingsInput {
  const out: SettingsInput = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.secret) {
      if (clear.has(f.name)) out[f.name] = null;
      else if (typeof v === 'string' && v !== '') out[f.name] = f.type === 'string' ? v : Number(v);
      continue;
    }
    if (from && from[f.name] === v) continue;
    if (f.type === 'boolean') out[f.name] = v === true;
    else if (typeof v !== 'string' || v === '') out[f.name] = null;
    else if (f.type === 'string') out[f.name] = v;
    else out[f.name] = Number.isFinite(Number(v)) ? Number(v) : v; // the server says what is wrong with it
  }
  return out;
}

/**
 * The inputs generated from an add-on's settings schema: one input per setting of its type
 * (checkbox, list of its enum, number with its bounds, text), required ones marked, secret
 * ones write-only (never shown: "set" or "not set", and a new value replaces the old).
 * `errors` are by setting name.
 */
export function SettingsFields({
  fields,
  values,
  secretsSet,
  clear,
  errors,
  onChange,
  onClear,
}: {
  fields: readonly SettingField[];
  values: Values;
  secretsSet: readonly string[];
  clear: ReadonlySet<string>;
  errors: Record<string, string | undefined>;
  onChange: (name: string, value: string | boolean) => void;
  onClear: (name: string, on: boolean) => void;
}) {
  return (
    <>
      {fields.map((f) => (
        <SettingInput
          key={f.name}
          field={f}
          value={values[f.name] ?? ''}
          isSet={secretsSet.includes(f.name)}
          clearing={clear.has(f.name)}
          error={errors[f.name]}
          onChange={(v) => onChange(f.name, v)}
          onClear={(on) => onClear(f.name, on)}
        />
      ))}
    </>
  );
}

/** The settings errors of a refusal by setting name, for issues at `body.<prefix><name>`. */
export function settingErrors(error: unknown, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ApiError)) return out;
  for (const [path, message] of Object.entries(error.fieldErrors())) if (path.startsWith(prefix)) out[path.slice(prefix.length)] ??= message;
  return out;
}

/** The checkboxes that clear a secret, as a set kept by the form. */
export function useClearSet(): [Set<string>, (name: string, on: boolean) => void, () => void] {
  const [clear, setClear] = useState<Set<string>>(new Set());
  const toggle = (name: string, on: boolean) =>
    setClear((c) => {
      const next = new Set(c);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  return [clear, toggle, () => setClear(new Set())];
}

/**
 * A settings form that saves through `save` (the add-on's own settings, or one instance's):
 * `save` answers the settings as saved, which the form starts from again. Issues at
 * `body.<errorPrefix><name>` are said on their setting.
 */
export function SettingsEditor({
  fields,
  state,
  label,
  errorPrefix,
  save: saveSettings,
}: {
  fields: readonly SettingField[];
  state: SettingsState;
  label: string;
  errorPrefix: string;
  save: (input: SettingsInput) => Promise<SettingsState>;
}) {
  const [values, setValues] = useState<Values>(() => initialValues(fields, state.settings));
  const [clear, toggleClear, resetClear] = useClearSet();
  const save = useMutation({
    mutationFn: saveSettings,
    onSuccess: (saved) => {
      setValues(initialValues(fields, saved.settings));
      resetClear();
    },
  });
  if (fields.length === 0) return <p>{t('addOns.settings.none')}</p>;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate(toSettingsInput(fields, values, clear));
  };
  return (
    <form onSubmit={onSubmit} noValidate className="addons-settings" aria-label={label}>
      <p className="hint">{t('addOns.settings.intro')}</p>
      <SettingsFields
        fields={fields}
        values={values}
        secretsSet={state.secretsSet}
        clear={clear}
        errors={settingErrors(save.error, errorPrefix)}
        onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
        onClear={toggleClear}
      />
      <FormError error={save.error} />
      {save.isSuccess && (
        <p className="notice" role="status">
          {t('addOns.settings.saved')}
        </p>
      )}
      <button type="submit" disabled={save.isPending}>
        {save.isPending ? t('addOns.settings.saving') : t('addOns.settings.save')}
      </button>
    </form>
  );
}

/** The add-on's own settings (PATCH /add-ons/{key}). */
export function SettingsForm({ addon }: { addon: Addon }) {
  const save = useSaveSettings(addon);
  return (
    <SettingsEditor
      fields={addon.settingsSchema}
      state={addon}
      label={t('addOns.settings.formLabel', { name: addon.name })}
      errorPrefix="settings."
      save={save}
    />
  );
}

function SettingInput({
  field,
  value,
  isSet,
  clearing,
  error,
  onChange,
  onClear,
}: {
  field: SettingField;
  value: string | boolean;
  isSet: boolean;
  clearing: boolean;
  error: string | undefined;
  onChange: (value: string | boolean) => void;
  onClear: (on: boolean) => void;
}) {
  const id = useId();
  const label = field.title ?? field.name;
  const hints: string[] = [];
  if (field.description) hints.push(field.description);
  if (field.format === 'time-zone') hints.push(t('addOns.timeZone.hint'));
  const bounds = boundsText(field);
  if (bounds) hints.push(bounds);
  const described =
    [hints.length ? `${id}-hint` : null, field.secret ? `${id}-secret` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: field.name,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described,
    'aria-required': field.required || undefined,
  } as const;

  // A setting with a format gets its own editor (the manifest's `format`, AO: opening-hours, time-zone).
  if (field.format === 'opening-hours' && !field.secret) {
    return (
      <div className="field" data-testid={`setting-${field.name}`}>
        {hints.length > 0 && (
          <p className="hint" id={`${id}-hint`}>
            {hints.join(' ')}
          </p>
        )}
        <OpeningHoursInput
          id={id}
          label={field.required ? `${label}${t('addOns.settings.required')}` : label}
          value={String(value)}
          describedBy={described}
          invalid={Boolean(error)}
          onChange={onChange}
        />
        {error && (
          <p className="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
      </div>
    );
  }

  let control;
  if (field.format === 'time-zone' && !field.secret) {
    control = (
      <>
        <input
          {...common}
          type="text"
          list={`${id}-zones`}
          autoComplete="off"
          spellCheck={false}
          value={String(value)}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.target.value)}
        />
        <datalist id={`${id}-zones`}>
          {timeZoneOptions(String(value)).map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
      </>
    );
  } else if (field.type === 'boolean') {
    control = <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  } else if (field.enum && !field.secret) {
    control = (
      <select {...common} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {(!field.required || value === '') && <option value={NONE}>{t('addOns.settings.notChosen')}</option>}
        {field.enum.map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (field.secret) {
    control = (
      <input
        {...common}
        type="password"
        autoComplete="new-password"
        value={String(value)}
        disabled={clearing}
        onChange={(e) => onChange(e.target.value)}
        inputMode={field.type === 'string' ? undefined : 'decimal'}
      />
    );
  } else if (field.type === 'string') {
    control =
      (field.maxLength ?? 10_000) > 300 ? (
        <textarea {...common} rows={3} value={String(value)} maxLength={field.maxLength} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} type="text" value={String(value)} maxLength={field.maxLength} onChange={(e) => onChange(e.target.value)} />
      );
  } else {
    control = (
      <input
        {...common}
        type="number"
        value={String(value)}
        min={field.minimum}
        max={field.maximum}
        step={field.type === 'integer' ? 1 : 'any'}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }

  return (
    <div className={field.type === 'boolean' ? 'field addons-check' : 'field'} data-testid={`setting-${field.name}`}>
      {field.type === 'boolean' && control}
      <label htmlFor={id}>
        {label}
        {field.required && <span className="addons-required">{t('addOns.settings.required')}</span>}
      </label>
      {hints.length > 0 && (
        <p className="hint" id={`${id}-hint`}>
          {hints.join(' ')}
        </p>
      )}
      {field.secret && (
        <p className="hint" id={`${id}-secret`} data-testid={`secret-${field.name}`}>
          {isSet ? t('addOns.settings.secretSet') : t('addOns.settings.secretNotSet')}
        </p>
      )}
      {field.type !== 'boolean' && control}
      {field.secret && isSet && !field.required && (
        <div className="addons-check">
          <input id={`${id}-clear`} type="checkbox" checked={clearing} onChange={(e) => onClear(e.target.checked)} />
          <label htmlFor={`${id}-clear`}>{t('addOns.settings.clearSecret', { label })}</label>
        </div>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function boundsText(f: SettingField): string | null {
  if (f.type === 'number' || f.type === 'integer') {
    if (f.minimum !== undefined && f.maximum !== undefined) return t('addOns.settings.between', { min: f.minimum, max: f.maximum });
    if (f.minimum !== undefined) return t('addOns.settings.atLeast', { min: f.minimum });
    if (f.maximum !== undefined) return t('addOns.settings.atMost', { max: f.maximum });
  }
  return null;
}
