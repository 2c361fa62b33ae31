import { useCallback, useRef, useState } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { errorText } from '../../ui';
import { useUndo, type OpResult } from './api';

/** A route parameter as the person's table or record id (wouter leaves %2F and the like encoded). */
export function decoded(raw: string | undefined): string {
  if (raw === undefined) return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function useDataParams(): { conn: string; table: string; recordId: string } {
  const p = useParams<{ conn: string; table: string; recordId?: string }>();
  return { conn: decoded(p.conn), table: decoded(p.table), recordId: decoded(p.recordId) };
}

/**
 * A database's refusal of a write in its own words: the reason and the constraint (or column)
 * the data API answers in the error's params (`{reason: 'check', constraint: 'products_price_check'}`),
 * or null when the error is not one.
 */
export function refusalText(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  const { reason, constraint: named } = err.params as { reason?: unknown; constraint?: unknown };
  const constraint = typeof named === 'string' && named !== '' ? named : null;
  const v = { constraint: constraint ?? '' };
  switch (reason) {
    case 'check':
      return constraint ? t('data.refused.check', v) : t('data.refused.checkUnnamed');
    case 'unique':
      return constraint ? t('data.refused.unique', v) : t('data.refused.uniqueUnnamed');
    case 'foreign-key':
      return constraint ? t('data.refused.foreignKey', v) : t('data.refused.foreignKeyUnnamed');
    case 'not-null':
      return constraint ? t('data.refused.notNull', v) : t('data.refused.notNullUnnamed');
    case 'invalid':
      return constraint ? t('data.refused.invalid', v) : t('data.refused.invalidUnnamed');
    default:
      return null;
  }
}

/** The message of a failed write as a whole: the database's refusal in its words, else the error's own. */
export const writeErrorText = (err: unknown): string => refusalText(err) ?? errorText(err);

/** The message of a failed write for one column: the server's issue for it, else the database's refusal, else the error's own. */
export function columnError(err: unknown, column: string): string {
  if (err instanceof ApiError) {
    const issue = err.issues.find((i) => i.path === `body.values.${column}` || i.path.endsWith(`.values.${column}`));
    if (issue) return issue.message;
  }
  return writeErrorText(err);
}

/** Field messages of a failed create or update, by column. */
export function columnErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (err instanceof ApiError) {
    for (const i of err.issues) {
      const m = /values\.(.+)$/.exec(i.path);
      if (m) out[m[1]!] ??= i.message;
    }
  }
  return out;
}

export interface Toast {
  id: number;
  text: string;
  /** The write's undo token: the toast offers Undo (or Redo after an undo). */
  token: string | null;
  redo?: boolean;
  error?: boolean;
}

/**
 * The outcome of every write, with Undo through the data API's token (POST /data/undo/{token}).
 * An undo answers a token of its own, offered as Redo. `onUndone` gets the rows as they are now.
 */
export function useToasts(onUndone: (results: OpResult[]) => void) {
  const [toast, setToast] = useState<Toast | null>(null);
  const undo = useUndo();
  const pending = undo.isPending;
  const seq = useRef(0);
  // The last write of this tab not yet undone (its toast may be gone or replaced by an error's): what Ctrl+Z undoes.
  const lastWrite = useRef<Toast | null>(null);
  const show = useCallback((text: string, token: string | null, extra: Partial<Toast> = {}) => {
    const next = { id: ++seq.current, text, token, ...extra };
    if (token && !next.redo) lastWrite.current = next;
    setToast(next);
  }, []);
  const undoOf = async (of: Toast) => {
    if (!of.token || pending) return;
    if (lastWrite.current?.token === of.token) lastWrite.current = null;
    try {
      const out = await undo.mutateAsync(of.token);
      onUndone(out.results);
      show(of.redo ? t('data.toast.redone') : t('data.toast.undone', { count: out.results.length }), out.undoToken, { redo: !of.redo });
    } catch (err) {
      show(errorText(err), null, { error: true });
    }
  };
  const undoIt = () => (toast ? undoOf(toast) : Promise.resolve());
  /** Undoes the last write of this tab (Ctrl/⌘+Z); false when there is none left to undo. */
  const undoLast = (): boolean => {
    const last = lastWrite.current;
    if (!last || pending) return false;
    void undoOf(last);
    return true;
  };
  const view = (
    <div className="data-toast-region" aria-live="polite" role="status">
      {toast && (
        <div className={toast.error ? 'data-toast data-toast-error' : 'data-toast'} key={toast.id}>
          <span>{toast.text}</span>
          {toast.token && (
            <button type="button" onClick={() => void undoIt()} disabled={pending}>
              {toast.redo ? t('data.toast.redo') : t('data.toast.undo')}
            </button>
          )}
          <button type="button" className="link" onClick={() => setToast(null)} aria-label={t('data.toast.dismiss')}>
            {t('data.toast.dismissShort')}
          </button>
        </div>
      )}
    </div>
  );
  return { show, view, undoLast };
}
