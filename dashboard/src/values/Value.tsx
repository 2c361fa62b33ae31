import { useState, type ClipboardEvent } from 'react';
import { useRowLabel } from '../api/row-labels';
import { t } from '../i18n/t';
import { useValueContext } from './context';
import { binaryOf, showValue, type Shown, type ValueColumn, type ValueContext, type ValueKind } from './format';
import type { ReferenceTarget } from './references';
import './values.css';

export interface ValueProps {
  column: ValueColumn;
  value: unknown;
  /** A key column's referenced row, named by its display column (references.ts, referenceTarget). */
  reference?: ReferenceTarget | null;
  /**
   * Drawn in a grid cell: its controls stay out of the Tab order (the grid moves focus between
   * cells) and the JSON viewer opens over the rows below instead of pushing them down.
   */
  inGrid?: boolean;
  /** The reading conventions; the person's own when absent. */
  context?: ValueContext;
}

/** The catalogue's words for the two booleans: asked only for a boolean column (a grid draws hundreds of values a frame). */
const YES_NO = () => ({ yes: t('value.yes'), no: t('value.no') });
const NO_WORDS = { yes: '', no: '' };

/** A copy (Ctrl+C) of text selected inside one value takes the value as stored, not as shown. */
function copyExact(exact: string) {
  return (e: ClipboardEvent<HTMLElement>) => {
    const selection = window.getSelection();
    if (!selection || !e.currentTarget.contains(selection.anchorNode) || !e.currentTarget.contains(selection.focusNode)) return;
    e.clipboardData.setData('text/plain', exact);
    e.preventDefault();
  };
}

/** One stored value as a person reads it, by its column's type (format.ts), the exact value on hover and copy. */
export function Value(props: ValueProps) {
  const own = useValueContext();
  return drawValue(props, props.context ?? own);
}

/**
 * Value's drawing in `ctx`, with no hooks of its own: a grid asks the context once for all its
 * cells and draws each value through this, one element for most values instead of two
 * components and an element (decisions DB57).
 */
export function drawValue(props: Omit<ValueProps, 'context'>, ctx: ValueContext) {
  const { column, value, reference } = props;
  if (reference && value !== null && value !== undefined && (typeof value === 'string' || typeof value === 'number')) {
    return <ReferenceValue target={reference} value={String(value)} />;
  }
  return shownValue(showValue(column, value, ctx, column.type === 'boolean' ? YES_NO() : NO_WORDS), column, value, props.inGrid);
}

/** The kinds that read as plain text: no mark, chip, control or name of another row of their own. */
const PLAIN_KINDS: ReadonlySet<ValueKind> = new Set(['null', 'text', 'number', 'datetime', 'date', 'time']);

/** A value that reads as plain text, for a host that draws it as its own text (plainValue). */
export interface PlainValue {
  kind: ValueKind;
  /** What a person reads (the catalogue's NULL for a null). */
  text: string;
  /** The value exactly as stored, for the host's tooltip and copy (exactTitle, copyExactSelection). */
  exact: string;
  /** The class that gives it Value's look (`value-number`, `value-null`), or ''. */
  className: string;
}

/**
 * A value drawn as its host's own text, with no element of its own: a grid cell is then one
 * element (decisions DB57, a row drawn each frame of a scroll). Null when the value needs one
 * (a reference's name, a yes/no's mark, a chip, a UUID's copy, JSON's viewer, bytes' download):
 * drawValue draws those. The host shows `exact` on hover (its `title`) and gives it to a copy.
 */
export function plainValue(props: Omit<ValueProps, 'context' | 'inGrid'>, ctx: ValueContext): PlainValue | null {
  const { column, value, reference } = props;
  if (reference && value !== null && value !== undefined && (typeof value === 'string' || typeof value === 'number')) return null;
  if (column.type === 'boolean' && typeof value === 'boolean') return null;
  const shown = showValue(column, value, ctx, NO_WORDS);
  if (!PLAIN_KINDS.has(shown.kind)) return null;
  if (shown.kind === 'null') return { kind: 'null', text: t('value.null'), exact: '', className: 'value-null' };
  return { kind: shown.kind, text: shown.text, exact: shown.exact, className: shown.kind === 'number' ? 'value-number' : '' };
}

/**
 * A copy (Ctrl+C) of text selected inside `host` alone takes `exact`, the value as stored, not as
 * shown: Value's own copy, for a host that draws a plainValue as its text. True when it did.
 */
export function copyExactSelection(host: Element, exact: string, e: ClipboardEvent<HTMLElement>): boolean {
  const selection = window.getSelection();
  if (!selection || !host.contains(selection.anchorNode) || !host.contains(selection.focusNode)) return false;
  e.clipboardData.setData('text/plain', exact);
  e.preventDefault();
  return true;
}

function shownValue(shown: Shown, column: ValueColumn, value: unknown, inGrid?: boolean) {
  const common = { title: shown.exact, onCopy: copyExact(shown.exact), 'data-value-kind': shown.kind };
  switch (shown.kind) {
    case 'null':
      return <span className="value value-null">{t('value.null')}</span>;
    case 'number':
      return (
        <span className="value value-number" {...common}>
          {shown.text}
        </span>
      );
    case 'datetime':
    case 'date':
      return (
        <time className="value" dateTime={shown.exact} {...common}>
          {shown.text}
        </time>
      );
    case 'boolean':
      return (
        <span className={value ? 'value value-bool value-yes' : 'value value-bool value-no'} {...common}>
          <span aria-hidden="true">{value ? '✓ ' : '✕ '}</span>
          {shown.text}
        </span>
      );
    case 'enum':
      return (
        <span className="value value-chip" {...common}>
          {shown.text}
        </span>
      );
    case 'uuid':
      return (
        <span className="value value-uuid">
          <span {...common}>{shown.text}</span>
          <CopyButton key={shown.exact} text={shown.exact} inGrid={inGrid} />
        </span>
      );
    case 'json':
      // Keyed by the value: a grid's row element drawn again for another row (DB57) does not keep this one's viewer open.
      return <JsonValue key={shown.exact} shown={shown} column={column} value={value} inGrid={inGrid} />;
    case 'binary':
      return (
        <span className="value value-binary" {...common}>
          {shown.text}{' '}
          <a
            href={`data:application/octet-stream;base64,${binaryOf(value) ?? ''}`}
            download={`${column.name}.bin`}
            tabIndex={inGrid ? -1 : undefined}
            aria-label={t('value.download', { size: shown.text })}
          >
            {t('value.downloadShort')}
          </a>
        </span>
      );
    default:
      return (
        <span className="value" {...common}>
          {shown.text}
        </span>
      );
  }
}

function CopyButton({ text, inGrid }: { text: string; inGrid?: boolean }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="value-copy"
      tabIndex={inGrid ? -1 : undefined}
      aria-label={copied ? t('value.copied') : t('value.copy', { value: text })}
      title={t('value.copy', { value: text })}
      onClick={(e) => {
        e.stopPropagation();
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
      onBlur={() => setCopied(false)}
    >
      <span aria-hidden="true">{copied ? '✓' : '⧉'}</span>
    </button>
  );
}

/** JSON collapsed to one line; the button opens it laid out, as stored. */
function JsonValue({ shown, column, value, inGrid }: { shown: Shown; column: ValueColumn; value: unknown; inGrid?: boolean }) {
  const [open, setOpen] = useState(false);
  const name = column.display?.label || column.name;
  return (
    <span className={inGrid ? 'value value-json value-json-grid' : 'value value-json'}>
      <button
        type="button"
        className="value-json-toggle"
        aria-expanded={open}
        tabIndex={inGrid ? -1 : undefined}
        aria-label={t(open ? 'value.jsonHide' : 'value.jsonShow', { column: name })}
        onClick={(e) => {
          e.stopPropagation();
          setOpen((o) => !o);
        }}
        onDoubleClick={(e) => e.stopPropagation()}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
      </button>
      <code title={shown.exact} onCopy={copyExact(shown.exact)} data-value-kind="json">
        {shown.text}
      </code>
      {open && (
        <pre className="value-json-viewer" tabIndex={inGrid ? -1 : 0}>
          {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
        </pre>
      )}
    </span>
  );
}

/** A key column's value named by the referenced row's display column; the key itself while the name is on its way, or when there is none. */
function ReferenceValue({ target, value }: { target: ReferenceTarget; value: string }) {
  const label = useRowLabel(target, value);
  if (label === undefined || label === null || label === '')
    return (
      <span className="value" title={value} onCopy={copyExact(value)} data-value-kind="reference">
        {value}
      </span>
    );
  return (
    <span className="value value-reference" title={t('value.reference', { name: label, key: value })} onCopy={copyExact(value)} data-value-kind="reference">
      {label}
    </span>
  );
}
