import * as RadixPopover from '@radix-ui/react-popover';
import type { ReactNode } from 'react';
import './primitives.css';

/**
 * A box of content opened by a button (Radix Popover, decision DB55): not modal, the focus moves
 * into it and back to the button on Escape or a click outside. `label` names both the button (when
 * it shows only an icon) and the box (a `dialog` to assistive technology).
 */
export function Popover({
  trigger,
  label,
  children,
  open,
  onOpenChange,
  triggerClassName,
  className,
}: {
  trigger: ReactNode;
  label: string;
  children: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  triggerClassName?: string;
  className?: string;
}) {
  return (
    <RadixPopover.Root open={open} onOpenChange={onOpenChange}>
      <RadixPopover.Trigger className={triggerClassName} aria-label={label}>
        {trigger}
      </RadixPopover.Trigger>
      <RadixPopover.Portal>
        <RadixPopover.Content
          className={['popover-content', className].filter(Boolean).join(' ')}
          aria-label={label}
          align="end"
          sideOffset={6}
          collisionPadding={8}
        >
          {children}
        </RadixPopover.Content>
      </RadixPopover.Portal>
    </RadixPopover.Root>
  );
}

/** A control inside the popover that closes it (a link followed, say). */
export const PopoverClose = RadixPopover.Close;
