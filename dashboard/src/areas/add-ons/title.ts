import { useEffect, useState } from 'react';
import { useBranding } from '../../api/bootstrap';
import { t } from '../../i18n/t';
import { productName } from '../../shell/branding';

/** The document title for a screen whose heading is not a catalogue message (it names an add-on). */
export function useDocumentTitle(screen: string): void {
  const product = productName(useBranding());
  useEffect(() => {
    document.title = t('app.documentTitle', { screen, product });
  }, [screen, product]);
}

/**
 * A value another screen passed in the history entry's state (after an install, upgrade or
 * removal), kept for this screen and then cleared from the entry, so a reload does not say it again.
 */
export function useHistoryOnce<T extends object>(field: keyof T & string): T | null {
  const [value] = useState<T | null>(() => {
    const state: unknown = history.state;
    return typeof state === 'object' && state !== null && field in state ? (state as T) : null;
  });
  useEffect(() => {
    if (value) history.replaceState(null, '');
  }, [value]);
  return value;
}
