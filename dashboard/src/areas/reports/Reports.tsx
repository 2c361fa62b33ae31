import { t } from '../../i18n/t';
import { useTitle } from '../../ui';

/** The caller's scheduled reports (all of them with reports.admin). */
export function ReportList() {
  useTitle('reports.title');
  return <h1>{t('reports.title')}</h1>;
}

export function NewReport() {
  return <ReportList />;
}

export function EditReport() {
  return <ReportList />;
}
