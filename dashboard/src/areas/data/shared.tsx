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

/** The message of a failed write for one column: the server's issue for it, else the error's own. */
export function columnError(err: unknown, column: string): string {
  if (err instanceof ApiError) {
    const issue = err.issues.find((i) => i.path === `body.values.${column}` || i.path.endsWith(`.values.${column}`));
    if (issue) return issue.message;
  }
  return errorText(err);
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
  const show = useCallback((text: string, token: string | null, extra: Partial<Toast> = {}) => {
    setToast({ id: ++seq.current, text, token, ...extra });
  }, []);
  const undoIt = async () => {
    if (!toast?.token || pending) return;
    try {
      const out = await undo.mutateAsync(toast.token);
      onUndone(out.results);
      show(toast.redo ? t('data.toast.redone') : t('data.toast.undone', { count: out.results.length }), out.undoToken, { redo: !toast.redo });
    } catch (err) {
      show(errorText(err), null, { error: true });
    }
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
  return { show, view };
}
