import { useEffect } from 'react';
import { t } from '../../i18n/t';

/** The document title for a screen whose heading is not a catalogue message (it names an add-on). */
export function useDocumentTitle(screen: string): void {
  useEffect(() => {
    document.title = t('app.documentTitle', { screen });
  }, [screen]);
}
