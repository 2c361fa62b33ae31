import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useLocation } from 'wouter';

/**
 * Below this width the navigation is a drawer behind the top bar's menu button (decision DB37).
 * styles.css uses the same figure in its `@media (max-width: 899.98px)` rules.
 */
export const DRAWER_QUERY = '(max-width: 899.98px)';

const FOCUSABLE =
  'a[href], button:not([disabled]), summary, input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The elements Tab can reach inside `root`, in order (hidden ones, such as a closed <details>' content, left out). */
function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
}

export interface NavDrawer {
  open: boolean;
  /** The menu button's ref and its click. */
  button: RefObject<HTMLButtonElement | null>;
  toggle(): void;
  close(): void;
  /** The drawer's ref and its keydown (Tab kept inside, Escape closes). */
  drawer: RefObject<HTMLElement | null>;
  onKeyDown(event: KeyboardEvent<HTMLElement>): void;
}

/**
 * The narrow screen's navigation: opened by the menu button, focus moves into it and stays there
 * (Tab and Shift+Tab wrap) until Escape, the close button, the backdrop or a followed link closes
 * it; focus then returns to the menu button. Widening the window past the breakpoint closes it.
 */
export function useNavDrawer(): NavDrawer {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLElement>(null);
  const [location] = useLocation();

  const close = useCallback(() => {
    setOpen(false);
    button.current?.focus();
  }, []);
  const toggle = useCallback(() => setOpen((was) => !was), []);

  // A followed link closes it; focus goes to the new screen (the layout moves it to main), not back to the button.
  const seen = useRef(location);
  useEffect(() => {
    if (seen.current === location) return;
    seen.current = location;
    setOpen(false);
  }, [location]);

  useEffect(() => {
    if (!open) return;
    const first = drawer.current ? focusables(drawer.current)[0] : undefined;
    first?.focus();
    const wide = window.matchMedia(DRAWER_QUERY);
    const onChange = () => {
      if (!wide.matches) setOpen(false);
    };
    wide.addEventListener('change', onChange);
    return () => wide.removeEventListener('change', onChange);
  }, [open]);

  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (!open || !drawer.current) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        close();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = focusables(drawer.current);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) return;
      const active = document.activeElement;
      if (event.shiftKey && (active === first || !drawer.current.contains(active))) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || !drawer.current.contains(active))) {
        event.preventDefault();
        first.focus();
      }
    },
    [open, close],
  );

  return { open, button, toggle, close, drawer, onKeyDown };
}
