import gettextParser, { type PoData, type PoTranslation } from 'gettext-parser';
import { jsToXliff12, xliff12ToJs } from 'xliff';
import { AppError, toBcp47 } from '../../kernel/api.js';

export type ExchangeFormat = 'json' | 'po' | 'xliff';

export interface ExportEntry {
  namespace: string;
  key: string;
  source: string;
  value: string | null;
}

export interface ImportEntry {
  namespace: string;
  key: string;
  /** null: not text (a number in JSON, markup in XLIFF), rejected alone. */
  value: string | null;
}

export const CONTENT_TYPES: Record<ExchangeFormat, string> = {
  json: 'application/json; charset=utf-8',
  po: 'text/x-gettext-translation; charset=utf-8',
  xliff: 'application/xliff+xml; charset=utf-8',
};
export const EXTENSIONS: Record<ExchangeFormat, string> = { json: 'json', po: 'po', xliff: 'xlf' };

/** A file that cannot be read as a whole: 400 I18N_FILE_INVALID with params.reason. */
const fileInvalid = (reason: string, message: string) => new AppError('I18N_FILE_INVALID', { message, params: { reason } });

/**
 * The file of one locale (IN8). JSON: `{ "<namespace>": { "<key>": "<text>" } }`, the locale's own
 * texts only. PO: one entry a key, `msgctxt` `<namespace>.<key>`, `msgid` the English source,
 * `msgstr` the translation (empty when missing). XLIFF 1.2: one `<file original="<namespace>">`
 * a namespace, one `<trans-unit id="<key>">` a key with its source and target.
 */
export async function writeExport(format: ExchangeFormat, locale: string, entries: ExportEntry[]): Promise<Buffer> {
  if (format === 'json') {
    const out: Record<string, Record<string, string>> = {};
    for (const e of entries) if (e.value !== null) (out[e.namespace] ??= {})[e.key] = e.value;
    return Buffer.from(JSON.stringify(out, null, 2) + '\n');
  }
  if (format === 'po') {
    const translations: Record<string, Record<string, PoTranslation>> = { '': { '': { msgid: '', msgstr: [''] } } };
    for (const e of entries) {
      const ctx = `${e.namespace}.${e.key}`;
      translations[ctx] = { [e.source]: { msgctxt: ctx, msgid: e.source, msgstr: [e.value ?? ''] } };
    }
    return gettextParser.po.compile({
      charset: 'utf-8',
      headers: {
        Language: toBcp47(locale).replace(/-/g, '_'),
        'Content-Type': 'text/plain; charset=UTF-8',
        'MIME-Version': '1.0',
        'Content-Transfer-Encoding': '8bit',
      },
      translations,
    });
  }
  const resources: Record<string, Record<string, { source: string; target: string }>> = {};
  for (const e of entries) (resources[e.namespace] ??= {})[e.key] = { source: e.source, target: e.value ?? '' };
  return Buffer.from(await jsToXliff12({ sourceLanguage: 'en', targetLanguage: toBcp47(locale), resources }));
}

/** Text content of an XLIFF source or target (a string, or inline elements the library split out). */
function xliffText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return null;
}

/** Reads a file of the format into entries; throws I18N_FILE_INVALID when the file as a whole cannot be read. */
export async function readImport(format: ExchangeFormat, bytes: Buffer): Promise<ImportEntry[]> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fileInvalid('encoding', 'The file is not UTF-8 text.');
  }
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fileInvalid('format', 'The file is not JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw fileInvalid('format', 'A JSON translation file is an object: { "<namespace>": { "<key>": "<text>" } }.');
    const out: ImportEntry[] = [];
    for (const [namespace, messages] of Object.entries(parsed)) {
      if (!messages || typeof messages !== 'object' || Array.isArray(messages))
        throw fileInvalid('format', `"${namespace}" is not an object of keys: { "<namespace>": { "<key>": "<text>" } }.`);
      for (const [key, value] of Object.entries(messages as Record<string, unknown>))
        out.push({ namespace, key, value: typeof value === 'string' ? value : null });
    }
    return out;
  }
  if (format === 'po') {
    let data: PoData;
    try {
      data = gettextParser.po.parse(bytes, { defaultCharset: 'utf-8' });
    } catch (err) {
      throw fileInvalid('format', `The file is not a PO file: ${(err as Error).message}`);
    }
    const out: ImportEntry[] = [];
    for (const [ctx, byId] of Object.entries(data.translations)) {
      if (ctx === '') continue; // the header
      const dot = ctx.indexOf('.');
      for (const t of Object.values(byId)) {
        out.push({ namespace: dot > 0 ? ctx.slice(0, dot) : '', key: dot > 0 ? ctx.slice(dot + 1) : ctx, value: t.msgstr[0] ?? '' });
      }
    }
    if (out.length === 0 && !/^\s*msgid\s/m.test(text)) throw fileInvalid('format', 'The file is not a PO file: it has no msgid.');
    return out;
  }
  let js: Awaited<ReturnType<typeof xliff12ToJs>>;
  try {
    if (!/<xliff\b[^>]*version="1\.2"/.test(text)) throw new Error('no <xliff version="1.2"> element');
    js = await xliff12ToJs(text);
  } catch (err) {
    throw fileInvalid('format', `The file is not XLIFF 1.2: ${(err as Error).message}`);
  }
  const out: ImportEntry[] = [];
  for (const [namespace, units] of Object.entries(js.resources ?? {}))
    for (const [key, unit] of Object.entries(units)) {
      const target = xliffText(unit.target);
      // A target with markup the library splits out is refused alone (a translation is plain ICU text).
      out.push({ namespace, key, value: target });
    }
  return out;
}
