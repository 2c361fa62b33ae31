import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useParams, useSearch } from 'wouter';
import { t, type MessageId } from '../../i18n/t';
import { ErrorPanel, FieldFrame, FormError, Loading, SelectField } from '../../ui';
import {
  FORMATS,
  paths,
  useSaveSchemaOverrides,
  useSchema,
  type ColumnFormat,
  type ColumnOverride,
  type EffectiveTable,
  type SchemaOverrides,
  type TableOverride,
} from './api';
import { ConnectionScreen } from './parts';
import './connections.css';
import { DataTable, type DataColumn } from '../../ui/DataTable';

type Column = EffectiveTable['columns'][number];

/** The option for "no choice" (the API's default). */
const NONE = '';

/**
 * Display overrides (PUT /connections/{id}/schema/overrides), one table at a time: its label,
 * hidden, display column; each column's label, hidden, personal data, secret, format.
 */
export function Overrides() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.overrides">
      {() => <OverridesOf id={id} />}
    </ConnectionScreen>
  );
}

function OverridesOf({ id }: { id: string }) {
  const schema = useSchema(id);
  const search = new URLSearchParams(useSearch());
  if (schema.isPending) return <Loading />;
  if (schema.isError) return <ErrorPanel error={schema.error} onRetry={() => void schema.refetch()} />;
  if (schema.data === null) return <p>{t('connections.schema.notRead')}</p>;
  const tables = schema.data.model.tables;
  if (tables.length === 0) return <p>{t('connections.tables.none')}</p>;
  const chosen = tables.find((x) => x.ref === search.get('table')) ?? tables[0]!;
  const href = (ref: string) => `${paths.overrides(id)}?table=${encodeURIComponent(ref)}`;
  return (
    <div className="conn-split">
      <nav aria-label={t('connections.overrides.tables')}>
        <ul className="conn-picker">
          {tables.map((x) => (
            <li key={x.ref}>
              <Link href={href(x.ref)} aria-current={x.ref === chosen.ref ? 'true' : undefined}>
                {x.display.label}
              </Link>{' '}
              {x.display.hidden && <span className="conn-tag">{t('connections.flag.hidden')}</span>}
            </li>
          ))}
        </ul>
      </nav>
      <TableForm key={chosen.ref} id={id} table={chosen} overrides={schema.data.overrides} />
    </div>
  );
}

interface ColumnState {
  label: string;
  hidden: boolean;
  personal: boolean;
  secret: boolean;
  format: ColumnFormat | '';
}

function TableForm({ id, table, overrides }: { id: string; table: EffectiveTable; overrides: SchemaOverrides }) {
  const current = overrides.tables.find((o) => o.table === table.ref);
  const [label, setLabel] = useState(current?.label ?? '');
  const [hidden, setHidden] = useState(current?.hidden ?? false);
  const [displayColumn, setDisplayColumn] = useState(current?.displayColumn ?? '');
  const [columns, setColumns] = useState<Record<string, ColumnState>>(() =>
    Object.fromEntries(
      table.columns.map((c) => {
        const o = current?.columns?.find((x) => x.column === c.name);
        return [
          c.name,
          { label: o?.label ?? '', hidden: o?.hidden ?? false, personal: o?.personal ?? false, secret: o?.secret ?? false, format: o?.format ?? '' },
        ];
      }),
    ),
  );
  const setColumn = (name: string, patch: Partial<ColumnState>) => setColumns((all) => ({ ...all, [name]: { ...all[name]!, ...patch } }));

  const save = useSaveSchemaOverrides(id);
  /** Every table's overrides, this one's as the form has them. */
  const allTables = (): TableOverride[] => {
    const next: TableOverride = { table: table.ref };
    if (label.trim()) next.label = label.trim();
    if (hidden) next.hidden = true;
    if (displayColumn) next.displayColumn = displayColumn;
    const cols: ColumnOverride[] = [];
    for (const c of table.columns) {
      const s = columns[c.name]!;
      const o: ColumnOverride = { column: c.name };
      if (s.label.trim()) o.label = s.label.trim();
      if (s.hidden) o.hidden = true;
      if (s.personal) o.personal = true;
      if (s.secret) o.secret = true;
      if (s.format) o.format = s.format;
      if (Object.keys(o).length > 1) cols.push(o);
    }
    // Overrides of columns this snapshot lacks are kept as they were (the API reports them as problems).
    const known = new Set(table.columns.map((c) => c.name));
    for (const o of current?.columns ?? []) if (!known.has(o.column)) cols.push(o);
    if (cols.length) next.columns = cols;
    const others = overrides.tables.filter((o) => o.table !== table.ref);
    return Object.keys(next).length > 1 ? [...others, next] : others;
  };

  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (save.isSuccess) outcome.current?.focus();
  }, [save.isSuccess]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!save.isPending) save.mutate(allTables());
  };
  const fid = `conn-ov-${table.ref}`;
  /** One row per column of the table: its name, then its overrides as controls named after it. */
  const check =
    (key: 'hidden' | 'personal' | 'secret', label: MessageId): DataColumn<Column>['cell'] =>
    (c) => (
      <input
        type="checkbox"
        checked={columns[c.name]![key]}
        onChange={(e) => setColumn(c.name, { [key]: e.target.checked })}
        aria-label={t(label, { column: c.name })}
      />
    );
  const overrideColumns: ReadonlyArray<DataColumn<Column>> = [
    { id: 'name', header: t('connections.schema.col.name'), rowHeader: true, cell: (c) => <code>{c.name}</code> },
    {
      id: 'label',
      header: t('connections.overrides.label'),
      cell: (c) => (
        <input
          value={columns[c.name]!.label}
          onChange={(e) => setColumn(c.name, { label: e.target.value })}
          aria-label={t('connections.overrides.columnLabel', { column: c.name })}
          autoComplete="off"
        />
      ),
    },
    { id: 'hidden', header: t('connections.overrides.col.hidden'), cell: check('hidden', 'connections.overrides.columnHidden') },
    { id: 'personal', header: t('connections.overrides.col.personal'), cell: check('personal', 'connections.overrides.columnPersonal') },
    { id: 'secret', header: t('connections.overrides.col.secret'), cell: check('secret', 'connections.overrides.columnSecret') },
    {
      id: 'format',
      header: t('connections.overrides.format'),
      cell: (c) => (
        <select
          value={columns[c.name]!.format}
          onChange={(e) => setColumn(c.name, { format: e.target.value as ColumnFormat | '' })}
          aria-label={t('connections.overrides.columnFormat', { column: c.name })}
        >
          <option value={NONE}>{t('connections.overrides.formatAuto')}</option>
          {FORMATS.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      ),
    },
  ];

  return (
    <form onSubmit={onSubmit} noValidate className="conn-form conn-overrides" aria-labelledby={`${fid}-title`}>
      <h2 id={`${fid}-title`}>{t('connections.overrides.of', { table: table.ref })}</h2>
      <div ref={outcome} tabIndex={-1} className="outcome">
        {save.isSuccess && (
          <p className="notice" role="status">
            {t('connections.overrides.saved', { table: table.ref })}
          </p>
        )}
        <FormError error={save.error} />
      </div>
      <FieldFrame label="connections.overrides.label" hint="connections.overrides.labelHint">
        {(id, describedBy) => <input id={id} value={label} onChange={(e) => setLabel(e.target.value)} aria-describedby={describedBy} autoComplete="off" />}
      </FieldFrame>
      <label className="conn-check">
        <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.target.checked)} /> {t('connections.overrides.hidden')}
      </label>
      <SelectField
        label="connections.overrides.displayColumn"
        name="displayColumn"
        value={displayColumn}
        onChange={(e) => setDisplayColumn(e.target.value)}
        options={[{ value: NONE, label: t('connections.overrides.displayColumnAuto') }, ...table.columns.map((c) => ({ value: c.name, label: c.name }))]}
      />
      <DataTable className="conn-table" caption={t('connections.overrides.columns')} columns={overrideColumns} rows={table.columns} rowKey={(c) => c.name} />
      <p className="hint">{t('connections.overrides.personalHint')}</p>
      <div className="conn-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? t('connections.form.saving') : t('connections.overrides.save')}
        </button>
      </div>
    </form>
  );
}
