import { t, type MessageId } from '../../i18n/t';
import { ACCENT_LABEL, ACCENTS, DENSITIES, DENSITY_LABEL, DIR_LABEL, DIRS, useLocaleChoices, THEME_LABEL, THEMES } from '../../shell/prefs';
import { Loading, SelectField } from '../../ui';
import { LoadError, SaveError, Saved, SettingsScreen, useSettingsSubmit } from './common';
import { useDefaults, useSaveDefaults, type Prefs } from './api';

/** "" is the system default (null on the wire). */
const withDefault = (options: Array<{ value: string; label: string }>) => [{ value: '', label: t('settings.defaults.system') }, ...options];
const labelled = <V extends string>(values: readonly V[], labels: Record<V, MessageId>) => withDefault(values.map((v) => ({ value: v, label: t(labels[v]) })));

/** /settings/defaults: the global preference defaults (D10), each a value or the system's. */
export function Defaults() {
  const query = useDefaults();
  const save = useSaveDefaults();
  const form = useSettingsSubmit(async (values) => {
    const body = Object.fromEntries(['theme', 'accent', 'density', 'locale', 'dir'].map((k) => [k, values[k] ? values[k] : null])) as Prefs;
    await save.mutateAsync(body);
  });

  return (
    <SettingsScreen title="settings.defaults.title">
      <p>{t('settings.defaults.intro')}</p>
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <DefaultsForm defaults={query.data} form={form} />
      )}
    </SettingsScreen>
  );
}

function DefaultsForm({ defaults, form }: { defaults: Prefs; form: ReturnType<typeof useSettingsSubmit> }) {
  const locales = useLocaleChoices(defaults.locale);
  return (
    <form className="settings-form" onSubmit={(e) => void form.onSubmit(e)} noValidate>
      <SaveError error={form.error} />
      <SelectField label="prefs.theme" name="theme" options={labelled(THEMES, THEME_LABEL)} defaultValue={defaults.theme ?? ''} error={form.fields.theme} />
      <SelectField
        label="prefs.accent"
        name="accent"
        options={labelled(ACCENTS, ACCENT_LABEL)}
        defaultValue={defaults.accent ?? ''}
        error={form.fields.accent}
      />
      <SelectField
        label="prefs.density"
        name="density"
        options={labelled(DENSITIES, DENSITY_LABEL)}
        defaultValue={defaults.density ?? ''}
        error={form.fields.density}
      />
      <SelectField
        label="prefs.locale"
        name="locale"
        options={withDefault(locales.map(({ value, label }) => ({ value, label })))}
        defaultValue={defaults.locale ?? ''}
        error={form.fields.locale}
      />
      <SelectField label="prefs.dir" name="dir" options={labelled(DIRS, DIR_LABEL)} defaultValue={defaults.dir ?? ''} error={form.fields.dir} />
      <button type="submit" disabled={form.pending}>
        {form.pending ? t('settings.saving') : t('settings.defaults.save')}
      </button>
      <Saved show={form.saved} />
    </form>
  );
}
