import { useId, useState, type KeyboardEvent, type Ref } from 'react';
import { t } from '../../i18n/t';
import { displayColumn, findTable, foreignKeyOf, useForeignKeyOptions, type Column, type Table } from './api';

/** A draft of one value as the person types it; `null` is the empty value (SQL NULL). */
export interface Draft {
  text: string;
  isNull: boolean;
  /** Datetime with zone: the offset the typed time is in (`Z`, `+02:00`). */
  zone: string;
}

/** Option values of the select editors (not text a person reads). */
const NULL_OPTION = '\u0000null';
const NONE = '';

const NUMBER_TYPES = new Set(['integer', 'bigint', 'float', 'decimal']);

export const hasZone = (c: Column) => c.type === 'datetime' && /with time zone|timestamptz/i.test(c.nativeType);

/** The browser's own offset, as `+hh:mm`. */
export function localZone(): string {
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function shift(iso: string, zone: string): string {
  // iso is UTC (ends with Z); answer the same instant's wall time in `zone`, without the zone.
  if (zone === 'Z') return iso.replace(/Z$/, '');
  const m = /^([+-])(\d\d):(\d\d)$/.exec(zone);
  if (!m) return iso.replace(/Z$/, '');
  const offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  const ms = Date.parse(iso) + offset * 60_000;
  return Number.isFinite(ms)
    ? new Date(ms)
        .toISOString()
        .replace(/Z$/, '')
        .replace(/\.000$/, '')
    : iso.replace(/Z$/, '');
}

/** The draft for a stored wire value. */
export function draftOf(column: Column, value: unknown): Draft {
  if (value === null || value === undefined) return { text: '', isNull: value === null, zone: 'Z' };
  if (column.type === 'json') return { text: JSON.stringify(value, null, 2), isNull: false, zone: 'Z' };
  if (column.type === 'datetime' && typeof value === 'string') {
    if (hasZone(column) || value.endsWith('Z')) return { text: shift(value, 'Z'), isNull: false, zone: 'Z' };
    return { text: value, isNull: false, zone: 'Z' };
  }
  return { text: String(value), isNull: false, zone: 'Z' };
}

export class DraftError extends Error {}

/** The wire value a draft stands for; a JSON that does not parse is said here, everything else the server checks. */
export function valueOf(column: Column, draft: Draft): unknown {
  if (draft.isNull) return null;
  const text = draft.text;
  switch (column.type) {
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        throw new DraftError(t('data.edit.badJson'));
      }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
    case 'float':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'datetime':
      if (!text) return text;
      return hasZone(column) ? `${text.length === 16 ? `${text}:00` : text}${draft.zone}` : text.length === 16 ? `${text}:00` : text;
    default:
      return text;
  }
}

export const isNumeric = (c: Column) => NUMBER_TYPES.has(c.type);

interface EditorProps {
  conn: string;
  table: Table;
  tables: readonly Table[];
  column: Column;
  draft: Draft;
  onChange: (draft: Draft) => void;
  /** The label of the control (the column's label, or a longer one). */
  label: string;
  id?: string;
  invalid?: boolean;
  describedBy?: string;
  inputRef?: Ref<HTMLInputElement & HTMLTextAreaElement & HTMLSelectElement>;
  onKeyDown?: (e: KeyboardEvent<HTMLElement>) => void;
}

/** The control for one value, by the column's type: text, number, boolean, date/time (with zone), JSON, enum, or a foreign key picker. */
export function ValueEditor(props: EditorProps) {
  const { column, draft, onChange, label, id, invalid, describedBy, inputRef, onKeyDown } = props;
  const common = {
    id,
    'aria-label': label,
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
    onKeyDown,
  };
  const set = (text: string) => onChange({ ...draft, text, isNull: false });
  const fk = foreignKeyOf(props.table, column.name);
  if (fk) return <ForeignKeyPicker {...props} fk={fk} />;

  if (column.type === 'boolean' || column.type === 'enum' || (column.enumValues && column.enumValues.length)) {
    const options = column.type === 'boolean' ? ['true', 'false'] : (column.enumValues ?? []);
    const labelOf = (o: string) => (column.type === 'boolean' ? t(o === 'true' ? 'data.value.true' : 'data.value.false') : o);
    return (
      <select
        {...common}
        ref={inputRef}
        value={draft.isNull ? NULL_OPTION : draft.text}
        onChange={(e) => (e.target.value === NULL_OPTION ? onChange({ ...draft, isNull: true, text: '' }) : set(e.target.value))}
      >
        {(column.nullable || draft.isNull) && <option value={NULL_OPTION}>{t('data.value.null')}</option>}
        {!draft.isNull && draft.text !== '' && !options.includes(draft.text) && <option value={draft.text}>{draft.text}</option>}
        {draft.text === '' && !draft.isNull && <option value={NONE}>{t('data.value.choose')}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {labelOf(o)}
          </option>
        ))}
      </select>
    );
  }
  if (column.type === 'json' || column.type === 'text') {
    return (
      <textarea
        {...common}
        ref={inputRef}
        rows={column.type === 'json' ? 6 : 3}
        value={draft.text}
        spellCheck={column.type === 'text'}
        onChange={(e) => set(e.target.value)}
      />
    );
  }
  if (column.type === 'datetime') {
    return (
      <span className="data-datetime">
        <input {...common} ref={inputRef} type="datetime-local" step={1} value={draft.text.slice(0, 19)} onChange={(e) => set(e.target.value)} />
        {hasZone(column) && <ZonePicker draft={draft} onChange={onChange} label={t('data.edit.zone', { column: label })} />}
      </span>
    );
  }
  const type = column.type === 'date' ? 'date' : column.type === 'time' ? 'time' : 'text';
  return (
    <input
      {...common}
      ref={inputRef}
      type={type}
      step={type === 'time' ? 1 : undefined}
      inputMode={isNumeric(column) ? 'decimal' : undefined}
      value={draft.text}
      onChange={(e) => set(e.target.value)}
    />
  );
}

/** Every offset in use, -12:00 to +14:00 by quarter hours where zones have them. */
const OFFSETS = Array.from({ length: 27 * 4 + 1 }, (_, k) => k * 15 - 12 * 60)
  .filter((m) => m % 60 === 0 || [-570, -210, 210, 270, 330, 345, 390, 525, 570, 630, 765].includes(m))
  .map((m) => `${m < 0 ? '-' : '+'}${String(Math.floor(Math.abs(m) / 60)).padStart(2, '0')}:${String(Math.abs(m) % 60).padStart(2, '0')}`);

function ZonePicker({ draft, onChange, label }: { draft: Draft; onChange: (d: Draft) => void; label: string }) {
  const local = localZone();
  const zones = [...new Set(['Z', local, draft.zone, ...OFFSETS])];
  const change = (zone: string) => {
    // The same instant, shown in the other zone.
    const value = valueOf({ type: 'datetime', nativeType: 'timestamptz' } as Column, draft);
    const text = typeof value === 'string' && value && Number.isFinite(Date.parse(value)) ? shift(new Date(Date.parse(value)).toISOString(), zone) : draft.text;
    onChange({ ...draft, zone, text });
  };
  return (
    <select aria-label={label} value={draft.zone} onChange={(e) => change(e.target.value)}>
      {zones.map((z) => (
        <option key={z} value={z}>
          {z === 'Z' ? t('data.edit.utc') : z === local ? t('data.edit.localZone', { zone: z }) : z}
        </option>
      ))}
    </select>
  );
}

/** A key column: type the referenced row's id, or search the referenced table by its display column and pick a row. */
function ForeignKeyPicker(props: EditorProps & { fk: NonNullable<ReturnType<typeof foreignKeyOf>> }) {
  const { conn, tables, fk, draft, onChange, label, id, invalid, describedBy, inputRef, onKeyDown } = props;
  const target = findTable(tables, fk.referencedTable, fk.referencedSchema);
  const listId = useId();
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const shown = target ? displayColumn(target) : null;
  const keyColumn = fk.referencedColumns[0]!;
  const options = useForeignKeyOptions(conn, target, keyColumn, query, open);
  const rows = options.data ?? [];
  const choose = (row: Record<string, unknown>) => {
    onChange({ ...draft, text: String(row[keyColumn] ?? ''), isNull: false });
    setOpen(false);
    setQuery('');
  };
  return (
    <span className="data-fk">
      <input
        id={id}
        ref={inputRef}
        aria-label={label}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        value={draft.text}
        onChange={(e) => onChange({ ...draft, text: e.target.value, isNull: false })}
        onKeyDown={onKeyDown}
      />
      {target && (
        <span className="data-fk-search">
          <input
            role="combobox"
            aria-label={t('data.edit.fkSearch', { table: target.display.label || target.name })}
            placeholder={t('data.edit.fkSearchPlaceholder', { table: target.display.label || target.name })}
            aria-expanded={open}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={open && rows[active] ? `${listId}-${active}` : undefined}
            value={query}
            onFocus={() => setOpen(true)}
            onChange={(e) => {
              setQuery(e.target.value);
              setOpen(true);
              setActive(0);
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                setActive((a) => Math.min(rows.length - 1, a + 1));
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                setActive((a) => Math.max(0, a - 1));
              } else if (e.key === 'Enter' && open && rows[active]) {
                e.preventDefault();
                e.stopPropagation();
                choose(rows[active]);
              } else if (e.key === 'Escape' && open) {
                e.stopPropagation();
                setOpen(false);
              }
            }}
          />
          {open && (
            <ul role="listbox" id={listId} className="data-fk-options" aria-label={t('data.edit.fkOptions')}>
              {rows.map((row, i) => (
                <li
                  key={String(row[keyColumn])}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === active}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => choose(row)}
                >
                  {t('data.edit.fkOption', { id: String(row[keyColumn] ?? ''), name: shown ? String(row[shown] ?? '') : '' })}
                </li>
              ))}
              {options.isSuccess && rows.length === 0 && (
                <li role="option" aria-selected={false} aria-disabled="true">
                  {t('data.edit.fkNone')}
                </li>
              )}
            </ul>
          )}
        </span>
      )}
    </span>
  );
}
