import { t } from '../i18n/t';
import { useMe } from '../areas/account/api';
import { useTitle } from '../ui';

export function Home() {
  useTitle('home.title');
  const me = useMe();
  return (
    <>
      <h1>{me.data ? t('home.greeting', { name: me.data.name }) : t('home.title')}</h1>
      <p>{t('home.intro')}</p>
    </>
  );
}
