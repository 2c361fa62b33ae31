import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import mime from 'mime';
import type { AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, strongEtag } from '../../../kernel/api.js';

/**
 * Serving an installed add-on's surfaces (D28, decisions DBxx-bundles): the path after
 * `/bundle/` is `<surface>/<file inside surfaces/<surface>/>`, checked by `bundlePath` and then
 * looked up in an index of the files of declared surfaces. Nothing is ever joined from the
 * request onto the file system, so no path can reach a file outside those folders.
 */

/** One path segment: letters, digits and `._~@+-`, not starting with a dot (so never `.` or `..`). */
const SEGMENT = /^[A-Za-z0-9_~@+-][A-Za-z0-9._~@+-]{0,254}$/;

/**
 * The surface and the file a request names, from the route's `*` parameter (fastify has decoded
 * it once). null when the path is malformed: empty segments (`//`, a trailing `/`, a leading `/`
 * of an absolute path), `.`/`..` (also when they arrived as `%2e%2e`), a `%` left after the
 * decode (double encoding), a backslash, NUL or any other character outside SEGMENT.
 */
export function bundlePath(path: string): { surface: string; file: string } | null {
  if (path.length === 0 || path.length > 1024) return null;
  const segments = path.split('/');
  if (segments.length < 2 || !segments.every((s) => SEGMENT.test(s))) return null;
  return { surface: segments[0]!, file: segments.slice(1).join('/') };
}

/** File names carrying a content hash (`app.3f9a1c2b.js`, `chunk-3f9a1c2b.css`): cached for a year. */
const HASHED = /[.-][0-9a-f]{8,64}\.[A-Za-z0-9]+$/;
export const isHashedName = (file: string): boolean => HASHED.test(file.slice(file.lastIndexOf('/') + 1));

const TEXTUAL = /^(text\/|application\/(javascript|json|manifest\+json|xml)|image\/svg\+xml)/;
export function contentTypeOf(file: string): string {
  const type = mime.getType(file) ?? 'application/octet-stream';
  return TEXTUAL.test(type) ? `${type}; charset=utf-8` : type;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * `<meta name="svc-app" content="{…}">` (its JSON HTML-escaped) placed after `<meta charset>`
 * when the page has one, else right after `<head>`, else at the start of the document.
 */
export function injectAppMeta(html: string, config: { appKey: string | null; apiBase: string }): string {
  const tag = `<meta name="svc-app" content="${escapeHtml(JSON.stringify({ appKey: config.appKey, apiBase: config.apiBase }))}" />`;
  const charset = /<meta\s+charset\s*=[^>]*>/i.exec(html);
  const head = /<head(\s[^>]*)?>/i.exec(html);
  const at = charset ? charset.index + charset[0].length : head ? head.index + head[0].length : 0;
  return `${html.slice(0, at)}${at ? '\n    ' : ''}${tag}${at ? '' : '\n'}${html.slice(at)}`;
}

/**
 * The Content-Security-Policy of a surface file: its own add-on's files, the instance's public
 * API and nothing else; `sandbox` (no allow-same-origin) gives its pages an opaque origin even
 * when opened at the instance's own address, so an add-on's script can never act as the
 * operator signed in to the dashboard there.
 */
export function surfaceCsp(input: { origin: string; key: string; frameAncestors: string[] }): string {
  const own = `${input.origin}/api/v1/add-ons/${input.key}/bundle/`;
  return [
    "default-src 'none'",
    `script-src ${own}`,
    `style-src ${own}`,
    `img-src ${own} data: blob:`,
    `font-src ${own} data:`,
    `media-src ${own}`,
    `connect-src ${input.origin}/api/v1/public/`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${input.frameAncestors.length ? input.frameAncestors.join(' ') : "'none'"}`,
    'sandbox allow-scripts allow-forms',
  ].join('; ');
}

/**
 * The CSP of a public page served on its own mapped host (D28): the host is the page's own
 * origin, holding only its files and the public API, so `'self'` is exact and no sandbox is
 * needed to keep it from the dashboard, which is never served there.
 */
export function mappedPageCsp(frameAncestors: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "media-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors.join(' ')}`,
  ].join('; ');
}

/**
 * What a public page's bundle URL shows when a browser opens it (AO30): its sandboxed origin
 * sends `Origin: null`, which the public API refuses (AO16), so the page itself would load and
 * then fail. A short, self-contained explanation of how to publish it instead.
 */
export function publicPageNotice(title: string): string {
  const t = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${t}: publish this page on its own address</title>
</head>
<body>
<main>
<h1>${t} is published on its own address</h1>
<p>This is a public page of an app. Opened here, at the instance's address, it cannot reach the app's data: for safety the page runs without an origin of its own, and the public API refuses such calls.</p>
<h2>How to publish it</h2>
<ol>
<li>Choose a host name for it, for example <code>booking.example.com</code>, and point its DNS at this instance.</li>
<li>In the dashboard, open the app under Add-ons and add the host name under Domains (or call <code>PUT /api/v1/surfaces/domains</code>).</li>
<li>Open the page at that host name: it is served there with its key, and can call the public API.</li>
</ol>
<p>The public API must be switched on (Public API, in the dashboard).</p>
</main>
</body>
</html>
`;
}

/** Who may frame a surface: the dashboard (the instance itself) and, for pages meant for sites, the public API's origins. */
export function frameAncestorsOf(kind: string, origin: string, publicOrigins: readonly string[]): string[] {
  return kind === 'dashboard-page' ? [origin] : [origin, ...publicOrigins];
}

/** The files of a package's declared surfaces, by `<surface>/<path>`; built once per unpacked package. */
export class SurfaceFiles {
  private readonly indexes = new Map<string, Promise<Map<string, string>>>();
  private readonly etags = new Map<string, string>();

  index(dir: string, manifest: AddonManifest): Promise<Map<string, string>> {
    let index = this.indexes.get(dir);
    if (!index) {
      index = buildIndex(dir, manifest);
      index.catch(() => this.indexes.delete(dir));
      this.indexes.set(dir, index);
    }
    return index;
  }

  /** The file's bytes and strong ETag (a package's files never change: the ETag is kept). */
  async read(file: string): Promise<{ bytes: Buffer; etag: string }> {
    const bytes = await readFile(file);
    let etag = this.etags.get(file);
    if (!etag) {
      etag = strongEtag(bytes);
      if (this.etags.size > 20_000) this.etags.clear();
      this.etags.set(file, etag);
    }
    return { bytes, etag };
  }
}

async function buildIndex(dir: string, manifest: AddonManifest): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (abs: string, rel: string): Promise<void> => {
    const entries = await readdir(abs).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    for (const name of entries) {
      const full = join(abs, name);
      const st = await lstat(full);
      if (st.isDirectory()) await walk(full, `${rel}/${name}`);
      else if (st.isFile()) files.set(`${rel}/${name}`, full);
    }
  };
  for (const s of manifest.surfaces) await walk(join(dir, 'surfaces', s.name), s.name);
  return files;
}

export function notInBundle(key: string, path: string): AppError {
  return new AppError('NOT_FOUND', { message: 'No such file in a surface of this add-on.', params: { key, path } });
}
