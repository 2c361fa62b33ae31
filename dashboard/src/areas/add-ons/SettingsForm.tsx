import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, ApiError, ok } from '../../api/client';
import { t } from '../../i18n/t';
import { FormError } from '../../ui';
import { ADDONS, INSTALLED, type Addon, type SettingField } from './api';

/** The value of the "none" option of a list (not a text a person reads). */
const NONE = '';

type Values = Record<string, string | boolean>;
type Input = Record<string, string | number | boolean | null>;

/** The form's starting values: the add-on's values (secrets never: their inputs start empty). */
function initial(addon: Addon): Values {
  const out: Values = {};
  for (const f of addon.settingsSchema) {
    if (f.secret) out[f.name] = '';
    else if (f.type === 'boolean') out[f.name] = addon.settings[f.name] === true;
    else out[f.name] = addon.settings[f.name] === undefined ? '' : String(addon.settings[f.name]);
  }
  return out;
}

/** What PATCH /add-ons/{key} gets: typed values, null to clear, and a secret only when a new one was typed (or cleared). */
function toInput(fields: readonly SettingField[], values: Values, clear: ReadonlySet<string>): Input {
  const out: Input = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.secret) {
      if (clear.has(f.name)) out[f.name] = null;
      else if (typeof v === 'string' && v !== '') out[f.name] = f.type === 'string' ? v : Number(v);
      continue;
    }
    if (f.type === 'boolean') out[f.name] = v === true;
    else if (typeof v !== 'string' || v === '') out[f.name] = null;
    else if (f.type === 'string') out[f.name] = v;
    else out[f.name] = Number.isFinite(Number(v)) ? Number(v) : v; // the server says what is wrong with it
  }
  return out;
}

/**
 * A form generated from the add-on's settings schema: one input per setting of its type
 * (checkbox, list of its enum, number with its bounds, text), required ones marked, secret
 * ones write-only (never shown: "set" or "not set", and a new value replaces the old).
 */
export function SettingsForm({ addon }: { addon: Addon }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Values>(() => initial(addon));
  const [clear, setClear] = useState<Set<string>>(new Set());
  const save = useMutation({
    mutationFn: async (settings: Input) => (await ok(api.PATCH('/add-ons/{key}', { params: { path: { key: addon.key } }, body: { settings } }))).data.addon,
    onSuccess: async (saved) => {
      queryClient.setQueryData(INSTALLED, (old: { addons: Addon[] } | undefined) =>
        old ? { ...old, addons: old.addons.map((a) => (a.key === saved.key ? saved : a)) } : old,
      );
      setValues(initial(saved));
      setClear(new Set());
      await queryClient.invalidateQueries({ queryKey: ADDONS });
    },
  });
  const fields = addon.settingsSchema;
  if (fields.length === 0) return <p>{t('addOns.settings.none')}</p>;
  const errors = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate(toInput(fields, values, clear));
  };
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  return (
    <form onSubmit={onSubmit} noValidate className="addons-settings" aria-label={t('addOns.settings.formLabel', { name: addon.name })}>
      <p className="hint">{t('addOns.settings.intro')}</p>
      {fields.map((f) => (
        <SettingInput
          key={f.name}
          field={f}
          value={values[f.name] ?? ''}
          isSet={addon.secretsSet.includes(f.name)}
          clearing={clear.has(f.name)}
          error={errors[`settings.${f.name}`]}
          onChange={(v) => set(f.name, v)}
          onClear={(on) =>
            setClear((c) => {
              const next = new Set(c);
              if (on) next.add(f.name);
              else next.delete(f.name);
              return next;
            })
          }
        />
      ))}
      <FormError error={save.error instanceof ApiError ? save.error : null} />
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

  let control;
  if (field.type === 'boolean') {
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
