import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { t } from '../../i18n/t';
import { paths, useNavConnections, useSchema, type Connection } from './api';

/** The first 100 connections are listed in the navigation; the rest are a link away. */
const NAV_LIMIT = 100;

/**
 * Below "Connections" in the main navigation while the person works there: each connection,
 * opening onto its tables and views (read when first opened); the one being worked in starts
 * open. Elsewhere it asks for nothing: the dashboard cannot know beforehand who may read the
 * connections, and a refused read on every screen would be noise.
 */
export function ConnectionsNavTree() {
  const [location] = useLocation();
  const here = location === '/connections' || location.startsWith('/connections/');
  const list = useNavConnections(NAV_LIMIT, here);
  if (!here || !list.data || list.data.connections.length === 0) return null;
  return (
    <ul className="nav-tree">
      {list.data.connections.map((c) => (
        <ConnectionNode key={c.id} connection={c} />
      ))}
      {list.data.nextCursor && (
        <li>
          <Link href="/connections">{t('connections.nav.more')}</Link>
        </li>
      )}
    </ul>
  );
}

function ConnectionNode({ connection }: { connection: Connection }) {
  const [location] = useLocation();
  const base = paths.one(connection.id);
  const [open, setOpen] = useState(() => location === base || location.startsWith(`${base}/`));
  return (
    <li>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{connection.name}</summary>
        {open && <TableLinks connection={connection} />}
      </details>
    </li>
  );
}

function TableLinks({ connection }: { connection: Connection }) {
  const schema = useSchema(connection.id);
  const [location] = useLocation();
  if (schema.isPending) return <p className="nav-note">{t('app.loading')}</p>;
  const tables = schema.data?.model.tables.filter((x) => !x.display.hidden) ?? [];
  if (schema.isError || tables.length === 0) {
    return (
      <ul>
        <li>
          <Link href={paths.one(connection.id)}>{t('connections.nav.open')}</Link>
        </li>
      </ul>
    );
  }
  return (
    <ul>
      {tables.map((table) => {
        const href = paths.table(connection.id, table.ref);
        return (
          <li key={table.ref}>
            <Link href={href} aria-current={location === href || location.startsWith(`${href}/`) ? 'page' : undefined}>
              {table.display.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
