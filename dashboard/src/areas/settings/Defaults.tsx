import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../../api/client';
import { t, type MessageId } from '../../i18n/t';
import { ACCENTS, DENSITIES, DIRS, LOCALES, localeName, PREFS, THEMES } from '../../shell/prefs';
import { Loading } from '../../ui';
import { LoadError, SaveError, Saved, SelectField, SettingsScreen, useSettingsSubmit } from './common';

type Prefs = Schemas['Prefs'];
export const DEFAULTS = ['settings', 'defaults'] as const;

const THEME: Record<string, MessageId> = { system: 'prefs.themeSystem', light: 'prefs.themeLight', dark: 'prefs.themeDark' };
const ACCENT: Record<string, MessageId> = {
  indigo: 'prefs.accentIndigo',
  blue: 'prefs.accentBlue',
  teal: 'prefs.accentTeal',
  violet: 'prefs.accentViolet',
  rose: 'prefs.accentRose',
  red: 'prefs.accentRed',
  orange: 'prefs.accentOrange',
  black: 'prefs.accentBlack',
};
const DENSITY: Record<string, MessageId> = { comfortable: 'prefs.densityComfortable', compact: 'prefs.densityCompact' };
const DIR: Record<string, MessageId> = { ltr: 'prefs.dirLtr', rtl: 'prefs.dirRtl' };

/** "" is the system default (null on the wire). */
const withDefault = (options: Array<{ value: string; label: string }>) => [{ value: '', label: t('settings.defaults.system') }, ...options];
const labelled = (values: readonly string[], labels: Record<string, MessageId>) => withDefault(values.map((v) => ({ value: v, label: t(labels[v]!) })));

/** /settings/defaults: the global preference defaults (D10), each a value or the system's. */
export function Defaults() {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: DEFAULTS, queryFn: async () => (await ok(api.GET('/settings/defaults'))).data.defaults });
  const form = useSettingsSubmit(async (values) => {
    const body = Object.fromEntries(['theme', 'accent', 'density', 'locale', 'dir'].map((k) => [k, values[k] ? values[k] : null])) as Prefs;
    const saved = (await ok(api.PUT('/settings/defaults', { body }))).data.defaults;
    queryClient.setQueryData(DEFAULTS, saved);
    // Everyone's resolved preferences may follow the new defaults, this person's included.
    await queryClient.invalidateQueries({ queryKey: PREFS });
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
  const locales: string[] = defaults.locale && !LOCALES.includes(defaults.locale as (typeof LOCALES)[number]) ? [defaults.locale, ...LOCALES] : [...LOCALES];
  return (
    <form className="settings-form" onSubmit={(e) => void form.onSubmit(e)} noValidate>
      <SaveError error={form.error} />
      <SelectField label="prefs.theme" name="theme" options={labelled(THEMES, THEME)} defaultValue={defaults.theme ?? ''} error={form.fields.theme} />
      <SelectField label="prefs.accent" name="accent" options={labelled(ACCENTS, ACCENT)} defaultValue={defaults.accent ?? ''} error={form.fields.accent} />
      <SelectField
        label="prefs.density"
        name="density"
        options={labelled(DENSITIES, DENSITY)}
        defaultValue={defaults.density ?? ''}
        error={form.fields.density}
      />
      <SelectField
        label="prefs.locale"
        name="locale"
        options={withDefault(locales.map((l) => ({ value: l, label: localeName(l) })))}
        defaultValue={defaults.locale ?? ''}
        error={form.fields.locale}
      />
      <SelectField label="prefs.dir" name="dir" options={labelled(DIRS, DIR)} defaultValue={defaults.dir ?? ''} error={form.fields.dir} />
      <button type="submit" disabled={form.pending}>
        {form.pending ? t('settings.saving') : t('settings.defaults.save')}
      </button>
      <Saved show={form.saved} />
    </form>
  );
}
