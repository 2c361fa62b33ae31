import { useId, useState, type FormEvent } from 'react';
import { t } from '../../i18n/t';
import type { Column, Row, Table } from './api';
import { DataValue } from './cell-value';
import { draftOf, DraftError, valueOf, ValueEditor, type Draft } from './editors';

interface RowFormProps {
  conn: string;
  table: Table;
  tables: readonly Table[];
  columns: readonly Column[];
  /** The row's current values (empty for a new row). */
  initial: Row;
  /** A new row: fields left empty are not sent, so the database's defaults apply. */
  creating?: boolean;
  readOnly?: boolean;
  /** Columns shown but not edited (a page's `readOnly` fields). */
  readOnlyColumns?: ReadonlySet<string>;
  /** A new row's starting values (a form page's `defaults`): sent unless changed. */
  defaults?: Row;
  errors: Record<string, string>;
  submitLabel: string;
  pending: boolean;
  onSubmit: (values: Row) => void;
  onLocalErrors: (errors: Record<string, string>) => void;
}

/** Every column of a row, each with its type's editor and its own error; only changed values are sent. */
export function RowForm(props: RowFormProps) {
  const { conn, table, tables, columns, initial, creating, errors, submitLabel, pending, onSubmit, onLocalErrors, defaults } = props;
  const id = useId();
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() =>
    Object.fromEntries(
      columns.map((c) => [
        c.name,
        creating && defaults && c.name in defaults
          ? draftOf(c, defaults[c.name])
          : creating
            ? { text: '', isNull: false, zone: 'Z' }
            : draftOf(c, initial[c.name]),
      ]),
    ),
  );
  const [touched, setTouched] = useState<Set<string>>(() => new Set(creating && defaults ? Object.keys(defaults) : []));
  const fixed = (c: Column) => props.readOnly === true || (props.readOnlyColumns?.has(c.name) ?? false);
  const readOnly = columns.length > 0 && columns.every(fixed);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (pending) return;
    const values: Row = {};
    const local: Record<string, string> = {};
    for (const c of columns) {
      // A fixed column is never sent, but for a new row's default (a form page's read-only default).
      if (!touched.has(c.name) || (fixed(c) && !(creating && defaults && c.name in defaults))) continue;
      const d = drafts[c.name]!;
      if (creating && !d.isNull && d.text === '') continue;
      try {
        values[c.name] = valueOf(c, d);
      } catch (err) {
        if (err instanceof DraftError) local[c.name] = err.message;
        else throw err;
      }
    }
    onLocalErrors(local);
    if (Object.keys(local).length === 0) onSubmit(values);
  };
  return (
    <form className="data-form" onSubmit={submit} noValidate>
      {columns.map((c) => {
        const fieldId = `${id}-${c.name}`;
        const error = errors[c.name];
        return (
          <div className="field data-field" key={c.name}>
            <label htmlFor={fieldId}>{c.display.label || c.name}</label>
            {fixed(c) ? (
              <output id={fieldId} className="data-readonly-value">
                <DataValue conn={conn} table={table} tables={tables} column={c} value={creating ? defaults?.[c.name] : initial[c.name]} />
              </output>
            ) : (
              <ValueEditor
                conn={conn}
                table={table}
                tables={tables}
                column={c}
                id={fieldId}
                label={c.display.label || c.name}
                draft={drafts[c.name]!}
                invalid={!!error}
                describedBy={error ? `${fieldId}-error` : undefined}
                onChange={(d) => {
                  setDrafts((all) => ({ ...all, [c.name]: d }));
                  setTouched((s) => new Set(s).add(c.name));
                }}
              />
            )}
            {!fixed(c) && c.nullable && (
              <label className="data-null">
                <input
                  type="checkbox"
                  checked={drafts[c.name]!.isNull}
                  onChange={(e) => {
                    setDrafts((all) => ({ ...all, [c.name]: { ...all[c.name]!, isNull: e.target.checked } }));
                    setTouched((s) => new Set(s).add(c.name));
                  }}
                />{' '}
                {t('data.edit.setNull', { column: c.display.label || c.name })}
              </label>
            )}
            {error && (
              <p className="field-error" id={`${fieldId}-error`}>
                {error}
              </p>
            )}
          </div>
        );
      })}
      {!readOnly && (
        <div className="actions">
          <button type="submit" disabled={pending}>
            {submitLabel}
          </button>
        </div>
      )}
    </form>
  );
}
