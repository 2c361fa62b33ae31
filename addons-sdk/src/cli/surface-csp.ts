/**
 * What the instance's surface CSP refuses in an HTML file (DESIGN D28, decisions AO14): inline
 * script, inline style (`<style>` and `style=`), inline event handlers, `javascript:` URLs and
 * form submission (`form-action 'none'`). The browser drops each silently but for a console
 * line, so check finds them first, with the line and column.
 */

export interface CspFinding {
  line: number;
  column: number;
  message: string;
}

/** `type` values of a `<script>` the browser runs (the rest are data blocks, which no CSP stops). */
const RUNNABLE_TYPES = new Set([
  '',
  'module',
  'importmap',
  'speculationrules',
  'text/javascript',
  'application/javascript',
  'application/ecmascript',
  'text/ecmascript',
  'text/jscript',
  'text/livescript',
  'application/x-javascript',
  'application/x-ecmascript',
  'text/x-javascript',
  'text/x-ecmascript',
]);

/** Attributes that hold a URL a browser may navigate to or load. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background']);

interface Attribute {
  name: string;
  value: string | null;
  at: number;
}

const NAME = /[^\s"'>/=\u0000]/;

/** Reads the attributes of a start tag from `from` (just after its name) to its `>`. */
function readAttributes(html: string, from: number): { attributes: Attribute[]; end: number } {
  const attributes: Attribute[] = [];
  let i = from;
  for (;;) {
    while (i < html.length && /[\s/]/.test(html[i]!)) i++;
    if (i >= html.length) return { attributes, end: i };
    if (html[i] === '>') return { attributes, end: i + 1 };
    const at = i;
    while (i < html.length && (NAME.test(html[i]!) || (i === at && html[i] === '='))) i++;
    const name = html.slice(at, i).toLowerCase();
    while (i < html.length && /\s/.test(html[i]!)) i++;
    let value: string | null = null;
    if (html[i] === '=') {
      i++;
      while (i < html.length && /\s/.test(html[i]!)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        const stop = close === -1 ? html.length : close;
        value = html.slice(i + 1, stop);
        i = stop + 1;
      } else {
        const start = i;
        while (i < html.length && !/[\s>]/.test(html[i]!)) i++;
        value = html.slice(start, i);
      }
    }
    if (name) attributes.push({ name, value, at });
    else i++;
  }
}

const decode = (value: string): string =>
  value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n');

/** `javascript:` as a browser reads a URL: entities decoded, tabs and newlines dropped, leading spaces ignored, any case. */
const isJavascriptUrl = (value: string): boolean =>
  /^javascript:/i.test(
    decode(value)
      .replace(/[\t\n\r]/g, '')
      .replace(/^[\u0000-\u0020]+/, ''),
  );

/** Every place in `html` that the surface CSP refuses. */
export function findCspProblems(html: string): CspFinding[] {
  const lineStarts = [0];
  for (let i = 0; i < html.length; i++) if (html[i] === '\n') lineStarts.push(i + 1);
  const position = (offset: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - lineStarts[lo]! + 1 };
  };
  const findings: CspFinding[] = [];
  const report = (offset: number, message: string) => findings.push({ ...position(offset), message });

  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close === -1 ? html.length : close + 3;
      continue;
    }
    const tag = /^<([a-zA-Z][a-zA-Z0-9:-]*)/.exec(html.slice(lt, lt + 64));
    if (!tag) {
      i = lt + 1;
      continue;
    }
    const name = tag[1]!.toLowerCase();
    const { attributes, end } = readAttributes(html, lt + tag[0].length);
    for (const a of attributes) {
      if (/^on[a-z]+$/.test(a.name))
        report(a.at, `inline event handler ${a.name}= (the surface CSP refuses inline script): add a listener in a .js file instead`);
      else if (a.name === 'style') report(a.at, 'inline style= attribute (the surface CSP refuses inline style): use a class and a .css file');
      else if (URL_ATTRIBUTES.has(a.name) && a.value !== null && isJavascriptUrl(a.value))
        report(a.at, `javascript: URL in ${a.name}= (the surface CSP refuses inline script): handle the click in a .js file`);
      if ((name === 'form' && a.name === 'action') || a.name === 'formaction')
        report(
          a.at,
          `${name === 'form' ? '<form action>' : 'formaction='}: the surface CSP refuses form submission (form-action 'none'); handle submit in script and call an action or the public API`,
        );
    }
    i = end;
    if (name === 'script' || name === 'style') {
      const close = html.toLowerCase().indexOf(`</${name}`, end);
      const body = html.slice(end, close === -1 ? html.length : close);
      const attr = (n: string) => attributes.find((a) => a.name === n);
      if (name === 'style') report(lt, 'inline <style> element (the surface CSP refuses inline style): move it into a .css file and link it');
      // With src, a browser runs the file and ignores the element's text.
      else if (body.trim() && !attr('src') && RUNNABLE_TYPES.has((attr('type')?.value ?? '').trim().toLowerCase()))
        report(lt, 'inline <script> (the surface CSP refuses inline script): move the code into a .js file and load it with <script type="module" src="…">');
      i = close === -1 ? html.length : close;
    }
  }
  return findings;
}
