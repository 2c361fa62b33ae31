import { useParams } from 'wouter';
import { t } from '../../i18n/t';
import { useTitle } from '../../ui';

/** A dashboard page at `/p/:slug` (kind `dashboard`): its widgets on a 12-column grid. */
export function DashboardPage() {
  const { slug } = useParams<{ slug: string }>();
  useTitle('dashboards.title');
  return (
    <section aria-label={slug}>
      <p>{t('dashboards.empty')}</p>
    </section>
  );
}
