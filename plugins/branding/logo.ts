import { imageSize } from 'image-size';

/** What a logo may be, known by its bytes (never by its name or the Content-Type the client sent). */
export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/svg+xml';

export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_MAX_SIDE = 2048;

export type LogoRefusal = 'format' | 'dimensions' | 'svg-unsafe';

export interface CheckedLogo {
  type: LogoType;
  width: number;
  height: number;
}

const startsWith = (bytes: Buffer, sig: number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);

/** The raster formats by their magic bytes; SVG by its first element. */
function sniff(bytes: Buffer): LogoType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  const text = svgText(bytes);
  if (text !== null && /^(?:\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->)*<svg[\s>]/i.test(text)) return 'image/svg+xml';
  return null;
}

/** UTF-8 text without a NUL, or null (an SVG is text). */
function svgText(bytes: Buffer): string | null {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  return text.includes('\u0000') || text.includes('\uFFFD') ? null : text;
}

/**
 * What an SVG logo may not hold, whatever the served CSP would block: script, event handlers,
 * foreign content, entities (a DOCTYPE), and references outside the file (href, url() and
 * @import to anything but a fragment of the same file). Refused, not cleaned: an operator gets
 * told what to remove rather than a logo that looks different from the file they chose.
 */
const SVG_UNSAFE: RegExp[] = [
  /<\s*script\b/i,
  /<\s*foreignObject\b/i,
  /<!DOCTYPE|<!ENTITY/i,
  /\son[a-z]+\s*=/i,
  /\b(?:xlink:)?href\s*=\s*(["'])(?!#)/i,
  /\burl\(\s*(["']?)(?!#)/i,
  /@import\b/i,
  /javascript:/i,
];

export function svgUnsafe(text: string): boolean {
  return SVG_UNSAFE.some((re) => re.test(text));
}

/** The logo's type and size, or why it is refused. */
export function checkLogo(bytes: Buffer): CheckedLogo | { refused: LogoRefusal; message: string } {
  const type = sniff(bytes);
  if (!type) return { refused: 'format', message: 'A logo is a PNG, JPEG, WebP or SVG file (known by its contents, not its name).' };
  if (type === 'image/svg+xml' && svgUnsafe(svgText(bytes)!))
    return {
      refused: 'svg-unsafe',
      message: 'The SVG holds script, event attributes, foreignObject, entities or references outside the file; remove them and upload it again.',
    };
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { refused: 'format', message: 'The image cannot be read; it may be damaged.' };
  }
  const width = Math.round(size.width ?? 0);
  const height = Math.round(size.height ?? 0);
  if (width <= 0 || height <= 0) return { refused: 'dimensions', message: 'The image does not say its width and height.' };
  if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE)
    return { refused: 'dimensions', message: `A logo is at most ${LOGO_MAX_SIDE} pixels a side; this one is ${width} × ${height}.` };
  return { type, width, height };
}
