import { Link } from 'wouter';
import { t, type MessageId } from '../i18n/t';
import { useTitle } from '../ui';

/** An area of the navigation whose screens come in later parts of the dashboard. */
export function AreaPlaceholder({ area }: { area: MessageId }) {
  useTitle(area);
  return (
    <>
      <h1>{t(area)}</h1>
      <p>{t('nav.comingSoon', { area: t(area) })}</p>
    </>
  );
}

export function NotFound() {
  useTitle('notFound.title');
  return (
    <>
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <p>
        <Link href="/">{t('notFound.home')}</Link>
      </p>
    </>
  );
}
