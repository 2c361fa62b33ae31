import { useCallback, useEffect, useRef, useState } from 'react';
import { lazyScreen } from '../areas/lazy-screen';
import { t } from '../i18n/t';
import './palette.css';
import { SearchIcon } from '../ui/icons';

/** What is open: the palette (Ctrl/⌘-K) or the list of shortcuts (`?`). */
export type Opened = 'palette' | 'shortcuts';

// The palette's code (cmdk, the search) loads on first use: it stays out of the first load.
// Not React's lazy(): its Suspense would hold the palette back 300 ms after its code is there.
const Dialogs = lazyScreen(
  () => import('./Palette'),
  () => null,
);

const OPEN_EVENT = 'svc-admin:palette';

/** ⌘ on Apple keyboards, Ctrl elsewhere. */
export const isApple = () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
export const paletteKeys = () => (isApple() ? '⌘ K' : 'Ctrl K');

/** A key typed into a field is the field's: `?` is a question mark there, not the shortcuts. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type);
}

/** The header's button: the palette for those without a keyboard (a phone). */
export function PaletteButton() {
  return (
    <button
      type="button"
      className="palette-button secondary"
      title={t('palette.openHint', { keys: paletteKeys() })}
      onClick={() => window.dispatchEvent(new Event(OPEN_EVENT))}
    >
      <SearchIcon className="icon" aria-hidden="true" />
      <span className="palette-button-text">{t('palette.open')}</span> <kbd aria-hidden="true">{paletteKeys()}</kbd>
    </button>
  );
}

/**
 * The command palette (Ctrl/⌘-K) and the `?` list of shortcuts, mounted once by the Layout.
 * Its code loads on first use. Escape closes either; the focus goes back where it was, unless a
 * command went to another screen (the Layout then puts it on the new screen).
 */
export function CommandPalette() {
  const [opened, setOpened] = useState<Opened | null>(null);
  const before = useRef<Element | null>(null);
  const openedRef = useRef(opened);
  openedRef.current = opened;

  const show = useCallback((what: Opened) => {
    if (openedRef.current === null) before.current = document.activeElement;
    setOpened(what);
  }, []);

  const close = useCallback((navigated = false) => {
    setOpened(null);
    const back = before.current;
    before.current = null;
    if (!navigated && back instanceof HTMLElement && back.isConnected) requestAnimationFrame(() => back.focus());
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        if (openedRef.current === 'palette') close();
        else show('palette');
      } else if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && openedRef.current === null && !typing(e.target)) {
        e.preventDefault();
        show('shortcuts');
      }
    };
    const onOpen = () => show('palette');
    window.addEventListener('keydown', onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, [show, close]);

  if (opened === null) return null;
  return <Dialogs opened={opened} onShow={show} onClose={close} />;
}
