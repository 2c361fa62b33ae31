import { useRef } from 'react';
import { Link, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading } from '../../ui';
import { useActionBridge } from './bridge';
import { useSurfaces, type Surface } from './api';
import { useDocumentTitle } from './title';
import './addons.css';

/**
 * An app's dashboard page (D28): its entry file in an iframe sandboxed without
 * allow-same-origin, so the page runs with an opaque origin: no session cookie, no access to the
 * dashboard's DOM or storage. What it may do with the session goes through the action bridge.
 */
export function AppPage() {
  const params = useParams<{ appKey: string; surface: string }>();
  const appKey = decodeURIComponent(params.appKey ?? '');
  const name = decodeURIComponent(params.surface ?? '');
  const surfaces = useSurfaces();
  const surface = surfaces.data?.find((s) => s.appKey === appKey && s.name === name && s.kind === 'dashboard-page' && s.enabled);
  useDocumentTitle(surface?.title ?? name);
  if (surfaces.isPending) return <Loading />;
  if (surfaces.isError) return <ErrorPanel error={surfaces.error} onRetry={() => void surfaces.refetch()} />;
  if (!surface)
    return (
      <>
        <h1>{t('addOns.appPage.notFound')}</h1>
        <p>{t('addOns.appPage.notFoundBody', { page: name, app: appKey })}</p>
        <p>
          <Link href="/add-ons">{t('addOns.backToList')}</Link>
        </p>
      </>
    );
  return (
    <div className="app-page">
      <h1>{surface.title}</h1>
      <AppFrame key={`${surface.appKey}/${surface.name}`} surface={surface} />
    </div>
  );
}

function AppFrame({ surface }: { surface: Surface }) {
  const frame = useRef<HTMLIFrameElement>(null);
  useActionBridge(frame, surface.appKey);
  return <iframe ref={frame} className="app-frame" src={surface.url} title={surface.title} sandbox="allow-scripts allow-forms" />;
}
