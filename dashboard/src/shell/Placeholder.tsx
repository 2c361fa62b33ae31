import { Link } from 'wouter';
import { t } from '../i18n/t';
import { useTitle } from '../ui';

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
