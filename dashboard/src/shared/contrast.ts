/*
 * The branding colour's rule, in one place for the server and the dashboard (decision BR10):
 * plugins/branding/colors.ts re-exports it to refuse a colour, the Branding settings screen
 * imports it to show the check while the colour is chosen. Pure and free of imports, so the
 * dashboard still imports nothing outside dashboard/ (test/boundaries.test.ts).
 */

/** `#rrggbb`, the only form a branding colour takes. */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.x relative luminance of an sRGB `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of white text on `hex` (1 to 21). */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/** WCAG AA for normal text: what the dashboard's buttons in the primary colour need (DB7). */
export const MIN_CONTRAST = 4.5;
