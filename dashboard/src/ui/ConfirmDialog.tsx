import { useRef, type ReactNode } from 'react';
import { Dialog } from './Dialog';
import { WarningIcon } from './icons';

/**
 * A modal confirmation (ui/Dialog: focus kept inside, Escape cancels), its title naming what is
 * confirmed. The focus starts on Cancel: the safe choice. When the dialog goes, the focus goes
 * back to what had it before (the button that opened it), if that is still on the page; a screen
 * that removed that button moves the focus itself.
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
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      title={title}
      icon={<WarningIcon className="icon dialog-icon-danger" aria-hidden="true" />}
      busy={pending}
      onClose={onCancel}
      initialFocus={cancelRef}
      actions={
        <>
          <button ref={cancelRef} type="button" className="secondary" disabled={pending} onClick={onCancel}>
            {cancel}
          </button>
          <button type="button" className="danger" disabled={pending} onClick={onConfirm} aria-busy={pending || undefined}>
            {confirm}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
