import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { EmptyState } from './EmptyState';
import { LoadMore, type NextPages } from './LoadMore';
import './data-table.css';

/** One column of a DataTable: its header and how a row fills its cell. */
export interface DataColumn<Row> {
  /** Unique among the table's columns (React's key for the header and the cells). */
  id: string;
  header: ReactNode;
  cell: (row: Row, index: number) => ReactNode;
  /**
   * This column's cells head their rows (`<th scope="row">`): a screen reader announces the row
   * by it, and tests find a row by its name. One column at most, usually the first.
   */
  rowHeader?: boolean;
  align?: 'start' | 'center' | 'end';
  /** A CSS width for the column (on its header cell), e.g. `8rem`. */
  width?: string;
  /** A class for this column's body cells. */
  className?: string;
}

/** What a row may carry besides its cells: a class (a changed row, say) and data attributes tests select by. */
export type RowAttributes = { className?: string } & { [attribute: `data-${string}`]: string | undefined };

/**
 * A table has a name: a caption (shown, or for screen readers only), or, without one, a label or
 * the id of the heading that names it. The scroll container takes the same name when it scrolls.
 */
type Naming =
  | { caption: ReactNode; captionHidden?: boolean; label?: never; labelledBy?: never }
  | { caption?: never; captionHidden?: never; label: string; labelledBy?: never }
  | { caption?: never; captionHidden?: never; label?: never; labelledBy: string };

interface DataTableOptions<Row> {
  columns: ReadonlyArray<DataColumn<Row>>;
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string | number;
  rowAttributes?: (row: Row, index: number) => RowAttributes;
  /** Shown instead of the table when there are no rows (a string becomes an EmptyState); without it an empty table shows. */
  empty?: ReactNode;
  /** The "show more" button of a keyset-paged list, under the table. */
  loadMore?: { list: NextPages; label: string; busyLabel?: string };
  /** `lines` (rules between rows, full width) or `grid` (every cell boxed, as wide as its content). */
  variant?: 'lines' | 'grid';
  /**
   * Below 700 px each row becomes a stacked card, every cell under its column's name (DB60): for
   * lists whose rows a person reads one at a time (reports, jobs) rather than compares across.
   */
  stacked?: boolean;
  /** More classes for the `<table>` (an area's styles for the controls in its cells). */
  className?: string;
  /** `data-testid` of the `<table>`. */
  testId?: string;
}

export type DataTableProps<Row> = DataTableOptions<Row> & Naming;

const ALIGN_CLASS = { start: undefined, center: 'data-table-center', end: 'data-table-end' } as const;

const classes = (...names: Array<string | undefined | false>) => names.filter(Boolean).join(' ') || undefined;

/**
 * A semantic table from typed column definitions. It scrolls sideways inside its own container
 * (never the page: a 390 px phone shows a wide table as a strip to swipe), and that container
 * becomes a named, focusable region only while it does scroll, so a keyboard can scroll it too
 * (axe's scrollable-region-focusable) without adding a tab stop to every narrow table.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, rowKey, rowAttributes, empty, loadMore, variant = 'lines', stacked, className, testId } = props;
  const captionId = useId();
  const more = loadMore && <LoadMore list={loadMore.list} label={loadMore.label} busyLabel={loadMore.busyLabel} />;

  if (rows.length === 0 && empty !== undefined) {
    return (
      <>
        {typeof empty === 'string' ? <EmptyState>{empty}</EmptyState> : empty}
        {more}
      </>
    );
  }

  const hasCaption = props.caption !== undefined;
  const regionName = hasCaption
    ? { 'aria-labelledby': captionId }
    : props.label !== undefined
      ? { 'aria-label': props.label }
      : { 'aria-labelledby': props.labelledBy };

  return (
    <>
      <ScrollBox name={regionName}>
        <table
          className={classes('data-table', variant === 'grid' && 'data-table-grid', stacked && 'data-table-stacked', className)}
          data-testid={testId}
          aria-label={hasCaption ? undefined : props.label}
          aria-labelledby={hasCaption ? undefined : props.labelledBy}
        >
          {hasCaption && (
            <caption id={captionId} className={props.captionHidden ? 'data-table-caption-hidden' : undefined}>
              {props.caption}
            </caption>
          )}
          <thead>
            <tr>
              {columns.map((column) => (
                <th
                  key={column.id}
                  scope="col"
                  className={column.align ? ALIGN_CLASS[column.align] : undefined}
                  style={column.width ? { width: column.width } : undefined}
                >
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={rowKey(row, index)} {...rowAttributes?.(row, index)}>
                {columns.map((column) => {
                  const className = classes(column.align && ALIGN_CLASS[column.align], column.className);
                  return column.rowHeader ? (
                    <th key={column.id} scope="row" className={className}>
                      {column.cell(row, index)}
                    </th>
                  ) : (
                    <td key={column.id} className={className} data-label={stacked && typeof column.header === 'string' ? column.header : undefined}>
                      {column.cell(row, index)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {more}
    </>
  );
}

type RegionName = { 'aria-labelledby': string | undefined } | { 'aria-label': string };

/**
 * The table's own scroll (sideways on a phone, down past 70 % of the window under its sticky
 * header); a focusable named region while its content is wider or taller than it.
 */
function ScrollBox({ name, children }: { name: RegionName; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const scrolls = useScrolls(box);
  return (
    <div ref={box} className="data-table-scroll" {...(scrolls ? { tabIndex: 0, role: 'region', ...name } : {})}>
      {children}
    </div>
  );
}

/** Whether the element's content is wider or taller than the element, kept up to date as either changes size. */
function useScrolls(ref: { current: HTMLElement | null }): boolean {
  const [scrolls, setScrolls] = useState(false);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    // The content grows without the box changing size (rows loaded, a longer value): watch it too.
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, [ref]);
  return scrolls;
}
