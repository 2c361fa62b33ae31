import * as RadixDialog from '@radix-ui/react-dialog';
import { useRef, type ReactNode, type RefObject } from 'react';
import './primitives.css';

/**
 * A modal dialog drawn while it is mounted (Radix Dialog, decision DB55): the rest of the page
 * inert, the focus kept inside, the title its name and the body its description. Escape asks
 * `onClose` (unless `busy`); a click outside does nothing, so a half-filled form is not lost.
 * The focus starts on `initialFocus` (else the first control), and when the dialog goes it
 * returns to what had it before, unless the screen already moved it somewhere meaningful.
 */
export function Dialog({
  title,
  icon,
  busy = false,
  onClose,
  initialFocus,
  className,
  children,
  actions,
}: {
  title: string;
  icon?: ReactNode;
  busy?: boolean;
  onClose: () => void;
  initialFocus?: RefObject<HTMLElement | null>;
  className?: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const before = useRef<Element | null>(typeof document === 'undefined' ? null : document.activeElement);
  return (
    <RadixDialog.Root
      open
      onOpenChange={(open) => {
        if (!open && !busy) onClose();
      }}
    >
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content
          className={['confirm-dialog', 'dialog-content', className].filter(Boolean).join(' ')}
          onOpenAutoFocus={(event) => {
            if (!initialFocus?.current) return;
            event.preventDefault();
            initialFocus.current.focus();
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            const had = before.current;
            const moved = document.activeElement && document.activeElement !== document.body;
            if (!moved && had instanceof HTMLElement && had.isConnected) had.focus();
          }}
          onPointerDownOutside={(event) => event.preventDefault()}
          onEscapeKeyDown={(event) => {
            if (busy) event.preventDefault();
          }}
        >
          <RadixDialog.Title>
            {icon}
            {title}
          </RadixDialog.Title>
          <RadixDialog.Description asChild>
            <div className="dialog-body">{children}</div>
          </RadixDialog.Description>
          {actions && <div className="actions">{actions}</div>}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
