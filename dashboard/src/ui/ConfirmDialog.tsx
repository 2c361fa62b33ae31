import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal confirmation (the native <dialog>: focus kept inside, Escape cancels), its title
 * naming what is confirmed. The focus starts on Cancel: the safe choice. When the dialog goes,
 * the focus goes back to what had it before (the button that opened it), if that is still on
 * the page; a screen that removed that button moves the focus itself.
 */
export function ConfirmDialog({
  title,
  confirm,
  cancel,
  pending,
  onConfirm,
  onCancel,
  children,
}: {
  title: string;
  confirm: string;
  cancel: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement;
    if (!dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      dialog.close();
      if (before instanceof HTMLElement && before.isConnected) before.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        if (!pending) onCancel();
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
      <div className="actions">
        <button type="button" className="danger" disabled={pending} onClick={onConfirm}>
          {confirm}
        </button>
        <button ref={cancelRef} type="button" className="secondary" disabled={pending} onClick={onCancel}>
          {cancel}
        </button>
      </div>
    </dialog>
  );
}
