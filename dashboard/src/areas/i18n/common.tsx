import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { errorText } from '../../ui';
import './i18n.css';

/**
 * A refusal of the i18n API in the dashboard's words (the envelope's `message` stays the API's
 * English): the code, the conflict's `params.reason` or an issue's code name the case.
 */
export function refusalText(error: unknown): string {
  if (!(error instanceof ApiError)) return errorText(error);
  const reasons = new Set<string>([String(error.params.reason ?? '')]);
  for (const issue of error.issues) {
    const { code, path } = issue as { code?: unknown; path: string };
    if (typeof code === 'string') reasons.add(code);
    if (path.endsWith('locale') || path.endsWith('.locale')) reasons.add('locale');
  }
  const said = JSON.stringify({ params: error.params, issues: error.issues });
  const has = (reason: string) => reasons.has(reason) || said.includes(reason);
  if (error.status === 403) return t('i18n.refusal.denied');
  if (error.code === 'I18N_LOCALE_EXISTS') return t('i18n.refusal.exists');
  if (has('source-locale')) return t('i18n.refusal.sourceLocale');
  if (has('instance-default')) return t('i18n.refusal.instanceDefault');
  if (has('shipped-locale')) return t('i18n.refusal.shippedLocale');
  if (has('fallback-cycle')) return t('i18n.refusal.fallbackCycle');
  if (has('fallback-unknown')) return t('i18n.refusal.fallbackUnknown');
  if (error.code === 'I18N_LOCALE_NOT_FOUND') return t('i18n.refusal.notFound');
  if (error.status === 400 && reasons.has('locale')) return t('i18n.refusal.localeInvalid');
  return errorText(error);
}

/** A locale's direction in words. */
export const dirText = (dir: 'ltr' | 'rtl') => t(dir === 'rtl' ? 'i18n.languages.dirRtl' : 'i18n.languages.dirLtr');
