import { t } from '../../i18n/t';
import { useTitle } from '../../ui';

/** The navigation editor (pages.admin): sections, pages and apps' pages, by drag or keyboard. */
export function NavEditor() {
  useTitle('pages.navEditor.title');
  return <h1>{t('pages.navEditor.title')}</h1>;
}
