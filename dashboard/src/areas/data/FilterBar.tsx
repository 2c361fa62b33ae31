import { useEffect, useId, useState } from 'react';
import { t, type MessageId } from '../../i18n/t';
import type { Column } from './api';
import { FILTER_OPS, type Filter, type FilterOp, type View } from './view';

/** Option values (the API's words, not text a person reads). */
const TRUE = 'true';
const FALSE = 'false';
const NONE = '';

const OP_LABEL: Record<FilterOp, MessageId> = {
  eq: 'data.filter.op.eq',
  ne: 'data.filter.op.ne',
  lt: 'data.filter.op.lt',
  lte: 'data.filter.op.lte',
  gt: 'data.filter.op.gt',
  gte: 'data.filter.op.gte',
  in: 'data.filter.op.in',
  like: 'data.filter.op.like',
  null: 'data.filter.op.null',
};

/** Operators the data API takes on a column of this type (json, binary and other: null only). */
function opsFor(c: Column | undefined): FilterOp[] {
  if (!c) return [...FILTER_OPS];
  if (c.type === 'json' || c.type === 'binary' || c.type === 'other') return ['null'];
  if (c.type === 'boolean') return ['eq', 'ne', 'null'];
  const textual = c.type === 'string' || c.type === 'text' || c.type === 'enum' || c.type === 'uuid';
  return FILTER_OPS.filter((op) => op !== 'like' || textual);
}

/** The view's filters, edited as a list and applied together (each one a `filter[col][op]` of the URL). */
export function FilterBar({ columns, view, onApply }: { columns: Column[]; view: View; onApply: (filters: Filter[]) => void }) {
  const id = useId();
  const [drafts, setDrafts] = useState<Filter[]>(view.filters);
  useEffect(() => setDrafts(view.filters), [view.filters]);
  const set = (i: number, patch: Partial<Filter>) => setDrafts((all) => all.map((f, k) => (k === i ? { ...f, ...patch } : f)));
  const add = () => {
    const c = columns[0];
    if (c) setDrafts((all) => [...all, { column: c.name, op: opsFor(c)[0]!, value: '' }]);
  };
  return (
    <form
      className="data-filters"
      aria-label={t('data.filter.label')}
      onSubmit={(e) => {
        e.preventDefault();
        onApply(drafts);
      }}
    >
      {drafts.map((f, i) => {
        const column = columns.find((c) => c.name === f.column);
        const ops = opsFor(column);
        const n = String(i + 1);
        return (
          <div className="data-filter" key={i} data-testid="filter">
            <select
              aria-label={t('data.filter.column', { n })}
              value={f.column}
              onChange={(e) =>
                set(i, {
                  column: e.target.value,
                  op: opsFor(columns.find((c) => c.name === e.target.value)).includes(f.op) ? f.op : opsFor(columns.find((c) => c.name === e.target.value))[0]!,
                })
              }
            >
              {columns.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.display.label || c.name}
                </option>
              ))}
            </select>
            <select
              aria-label={t('data.filter.op', { n })}
              value={f.op}
              onChange={(e) => set(i, { op: e.target.value as FilterOp, value: e.target.value === 'null' ? 'true' : f.value })}
            >
              {ops.map((op) => (
                <option key={op} value={op}>
                  {t(OP_LABEL[op])}
                </option>
              ))}
            </select>
            {f.op === 'null' ? (
              <select aria-label={t('data.filter.value', { n })} value={f.value} onChange={(e) => set(i, { value: e.target.value })}>
                <option value={TRUE}>{t('data.filter.isEmpty')}</option>
                <option value={FALSE}>{t('data.filter.isNotEmpty')}</option>
              </select>
            ) : column?.type === 'boolean' ? (
              <select aria-label={t('data.filter.value', { n })} value={f.value} onChange={(e) => set(i, { value: e.target.value })}>
                <option value={NONE}>{t('data.value.choose')}</option>
                <option value={TRUE}>{t('data.value.true')}</option>
                <option value={FALSE}>{t('data.value.false')}</option>
              </select>
            ) : (
              <input
                aria-label={t('data.filter.value', { n })}
                aria-describedby={f.op === 'in' || f.op === 'like' ? `${id}-hint-${f.op}` : undefined}
                type={column?.type === 'date' ? 'date' : 'text'}
                value={f.value}
                onChange={(e) => set(i, { value: e.target.value })}
              />
            )}
            <button
              type="button"
              className="link"
              onClick={() => setDrafts((all) => all.filter((_, k) => k !== i))}
              aria-label={t('data.filter.remove', { n })}
            >
              {t('data.filter.removeShort')}
            </button>
          </div>
        );
      })}
      <p className="hint" id={`${id}-hint-in`} hidden>
        {t('data.filter.inHint')}
      </p>
      <p className="hint" id={`${id}-hint-like`} hidden>
        {t('data.filter.likeHint')}
      </p>
      <div className="actions">
        <button type="button" className="secondary" onClick={add}>
          {t('data.filter.add')}
        </button>
        {(drafts.length > 0 || view.filters.length > 0) && <button type="submit">{t('data.filter.apply')}</button>}
      </div>
    </form>
  );
}
