import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { t } from '../../i18n/t';
import type { Column } from './api';
import { isNumeric } from './editors';

/**
 * A person's arrangement of a grid's columns: which are hidden, their order, their widths, and
 * whether the key column stays in view while the grid scrolls sideways. Stored as the `grid` of
 * the person's layout of a list page (PUT /me/views/{pageId}/layout; decision ME9), which the
 * server holds to this shape (plugins/me/schemas.ts, gridLayoutSchema).
 */
export interface ColumnLayout {
  /** Column names in the order shown; columns not named follow in the table's order. */
  order: string[];
  hidden: string[];
  /** px, MIN_W to MAX_W. */
  widths: Record<string, number>;
  /** The key column first and frozen at the left (the default). */
  freezeKey: boolean;
}

export const DEFAULT_LAYOUT: ColumnLayout = { order: [], hidden: [], widths: {}, freezeKey: true };
export const MIN_W = 60;
export const MAX_W = 800;
const STEP = 20;

/** Where a grid keeps its layout: read (null: none saved) and save (null: back to the default). */
export interface LayoutStore {
  value: ColumnLayout | null;
  save: (layout: ColumnLayout | null) => void;
}

/** A stored layout read defensively (it may come from an older dashboard): unknown parts dropped. */
export function layoutOf(raw: unknown): ColumnLayout | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Partial<Record<keyof ColumnLayout, unknown>>;
  const names = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
  const widths: Record<string, number> = {};
  if (r.widths && typeof r.widths === 'object')
    for (const [k, v] of Object.entries(r.widths)) if (typeof v === 'number' && v >= MIN_W && v <= MAX_W) widths[k] = Math.round(v);
  return { order: names(r.order), hidden: names(r.hidden), widths, freezeKey: r.freezeKey !== false };
}

/** A column's width before a person sets one, by its type. */
export function defaultWidth(c: Column): number {
  if (c.type === 'boolean') return 110;
  if (isNumeric(c)) return 130;
  if (c.type === 'date' || c.type === 'time') return 140;
  if (c.type === 'datetime') return 220;
  if (c.type === 'json' || c.type === 'text') return 260;
  return 180;
}

export const widthIn = (layout: ColumnLayout, c: Column) => layout.widths[c.name] ?? defaultWidth(c);

/** Every column of the view in the layout's order (hidden ones included); the key column first when it is frozen. */
export function orderedColumns(columns: readonly Column[], layout: ColumnLayout, key: string | undefined): Column[] {
  const at = (c: Column) => {
    const i = layout.order.indexOf(c.name);
    return i < 0 ? layout.order.length + columns.indexOf(c) : i;
  };
  const sorted = [...columns].sort((a, b) => at(a) - at(b));
  const k = layout.freezeKey && key ? sorted.findIndex((c) => c.name === key) : -1;
  if (k > 0) sorted.unshift(...sorted.splice(k, 1));
  return sorted;
}

/** The columns shown: the ordered ones not hidden (never none: the first one then stays). */
export function shownColumns(ordered: readonly Column[], layout: ColumnLayout): Column[] {
  const shown = ordered.filter((c) => !layout.hidden.includes(c.name));
  return shown.length ? shown : ordered.slice(0, 1);
}

const label = (c: Column) => c.display.label || c.name;

/**
 * The header's resize handle of a column (the ARIA window splitter): drag it, or focus it and
 * press ←/→ (Home/End: narrowest/widest). The width is saved when the drag or the key ends.
 */
export function ResizeHandle({ column, width, onResize }: { column: Column; width: number; onResize: (w: number, done: boolean) => void }) {
  const drag = useRef<{ x: number; w: number } | null>(null);
  const clamp = (w: number) => Math.max(MIN_W, Math.min(MAX_W, Math.round(w)));
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = e.key === 'ArrowLeft' ? width - STEP : e.key === 'ArrowRight' ? width + STEP : e.key === 'Home' ? MIN_W : e.key === 'End' ? MAX_W : null;
    if (next === null) return;
    e.preventDefault();
    e.stopPropagation();
    onResize(clamp(next), true);
  };
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={t('data.columns.resize', { column: label(column) })}
      aria-valuenow={width}
      aria-valuemin={MIN_W}
      aria-valuemax={MAX_W}
      tabIndex={0}
      className="data-resize"
      onKeyDown={onKey}
      onPointerDown={(e: PointerEvent<HTMLDivElement>) => {
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, w: width };
      }}
      onPointerMove={(e) => {
        if (drag.current) onResize(clamp(drag.current.w + e.clientX - drag.current.x), false);
      }}
      onPointerUp={(e) => {
        if (!drag.current) return;
        onResize(clamp(drag.current.w + e.clientX - drag.current.x), true);
        drag.current = null;
      }}
    />
  );
}

/**
 * The columns menu: show or hide each column, move it up or down (or drag it in the list), keep
 * the key column in view, and go back to the table's own arrangement. Each move is announced.
 */
export function ColumnsMenu(props: {
  columns: readonly Column[];
  layout: ColumnLayout;
  keyColumn: string | undefined;
  onChange: (layout: ColumnLayout) => void;
  onReset: () => void;
}) {
  const { columns, layout, keyColumn, onChange } = props;
  const [open, setOpen] = useState(false);
  const [said, setSaid] = useState('');
  const dragged = useRef<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const names = columns.map((c) => c.name);
  const frozen = layout.freezeKey && keyColumn !== undefined && names[0] === keyColumn;
  useEffect(() => {
    if (!open) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  const move = (name: string, to: number) => {
    const from = names.indexOf(name);
    const first = frozen ? 1 : 0;
    if (from < first || to < first || to >= names.length || to === from) return;
    const order = [...names];
    order.splice(to, 0, ...order.splice(from, 1));
    onChange({ ...layout, order });
    const c = columns[from]!;
    setSaid(t('data.columns.moved', { column: label(c), position: to + 1, count: names.length }));
  };
  const toggle = (c: Column, show: boolean) => {
    const hidden = show ? layout.hidden.filter((n) => n !== c.name) : [...layout.hidden, c.name];
    if (hidden.length >= names.length) return;
    onChange({ ...layout, hidden });
    setSaid(t(show ? 'data.columns.shownSaid' : 'data.columns.hiddenSaid', { column: label(c) }));
  };

  return (
    <div className="data-columns">
      <button ref={button} type="button" className="secondary" aria-expanded={open} aria-controls="data-columns-panel" onClick={() => setOpen((o) => !o)}>
        {t('data.columns.button')}
      </button>
      <p className="visually-hidden data-columns-said" aria-live="polite">
        {said}
      </p>
      {open && (
        <div id="data-columns-panel" className="data-columns-panel" role="group" aria-label={t('data.columns.title')}>
          <ul>
            {columns.map((c, i) => {
              const locked = frozen && i === 0;
              const shown = !layout.hidden.includes(c.name);
              return (
                <li
                  key={c.name}
                  draggable={!locked}
                  onDragStart={(e) => {
                    dragged.current = c.name;
                    e.dataTransfer.effectAllowed = 'move';
                  }}
                  onDragOver={(e) => {
                    if (dragged.current && !locked) e.preventDefault();
                  }}
                  onDrop={(e) => {
                    e.preventDefault();
                    if (dragged.current) move(dragged.current, i);
                    dragged.current = null;
                  }}
                >
                  <label>
                    <input type="checkbox" checked={shown} onChange={(e) => toggle(c, e.target.checked)} />
                    {label(c)}
                  </label>
                  <span className="data-columns-moves">
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('data.columns.up', { column: label(c) })}
                      disabled={locked || i === (frozen ? 1 : 0)}
                      onClick={() => move(c.name, i - 1)}
                    >
                      <span aria-hidden="true">↑</span>
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('data.columns.down', { column: label(c) })}
                      disabled={locked || i === columns.length - 1}
                      onClick={() => move(c.name, i + 1)}
                    >
                      <span aria-hidden="true">↓</span>
                    </button>
                  </span>
                </li>
              );
            })}
          </ul>
          {keyColumn !== undefined && (
            <label className="data-columns-freeze">
              <input type="checkbox" checked={layout.freezeKey} onChange={(e) => onChange({ ...layout, freezeKey: e.target.checked })} />
              {t('data.columns.freezeKey')}
            </label>
          )}
          <button
            type="button"
            className="link"
            onClick={() => {
              props.onReset();
              setSaid(t('data.columns.resetSaid'));
            }}
          >
            {t('data.columns.reset')}
          </button>
        </div>
      )}
    </div>
  );
}

/** A bare table grid's layout, kept in this browser until the server has a place for it (decision ME9). */
export function useBrowserLayout(key: string): LayoutStore {
  const storageKey = `svc.grid.layout:${key}`;
  const read = () => {
    try {
      return layoutOf(JSON.parse(localStorage.getItem(storageKey) ?? 'null'));
    } catch {
      return null;
    }
  };
  const [value, setValue] = useState<ColumnLayout | null>(read);
  return {
    value,
    save: (layout) => {
      setValue(layout);
      try {
        if (layout) localStorage.setItem(storageKey, JSON.stringify(layout));
        else localStorage.removeItem(storageKey);
      } catch {
        // A browser that keeps nothing: the layout lasts this screen.
      }
    },
  };
}
