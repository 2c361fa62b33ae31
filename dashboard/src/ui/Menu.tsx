import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import type { ComponentPropsWithoutRef, ReactNode } from 'react';
import './primitives.css';

/**
 * A menu of actions and links (Radix DropdownMenu, decision DB55): a button that says it opens a
 * menu, arrow keys and typeahead inside it, Escape and a click outside close it, the focus back
 * on the button. Items are `menuitem`s: a link item keeps its `href` (opens in a new tab too).
 */
export function Menu({
  trigger,
  label,
  children,
  className,
  align = 'end',
}: {
  /** What the button shows (a name, an icon). */
  trigger: ReactNode;
  /** The button's accessible name when `trigger` is not words enough. */
  label?: string;
  children: ReactNode;
  className?: string;
  align?: 'start' | 'center' | 'end';
}) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger className={['menu-trigger', className].filter(Boolean).join(' ')} aria-label={label}>
        {trigger}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu-content" align={align} sideOffset={6} collisionPadding={8}>
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** An action of the menu; `onSelect` runs and the menu closes. */
export function MenuItem({ className, ...props }: ComponentPropsWithoutRef<typeof DropdownMenu.Item>) {
  return <DropdownMenu.Item className={['menu-item', className].filter(Boolean).join(' ')} {...props} />;
}

/** A link of the menu: `children` is the link element itself (wouter's <Link>, an <a>). */
export function MenuLink({ children }: { children: ReactNode }) {
  return (
    <DropdownMenu.Item className="menu-item" asChild>
      {children}
    </DropdownMenu.Item>
  );
}

/** Words in the menu that are not an item (who is signed in, say). */
export function MenuLabel({ children }: { children: ReactNode }) {
  return <DropdownMenu.Label className="menu-label">{children}</DropdownMenu.Label>;
}

export function MenuSeparator() {
  return <DropdownMenu.Separator className="menu-separator" />;
}
