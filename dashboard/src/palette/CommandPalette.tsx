/**
 * The command palette (Ctrl/⌘-K) and the `?` list of shortcuts, mounted once by the Layout.
 * Its code loads on first use.
 */
export function CommandPalette() {
  return null;
}
