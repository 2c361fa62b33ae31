// The two file-format libraries ship no types; what this plugin uses of them (IN8).
declare module 'gettext-parser' {
  export interface PoTranslation {
    msgctxt?: string;
    msgid: string;
    msgid_plural?: string;
    msgstr: string[];
    comments?: Record<string, string>;
  }
  export interface PoData {
    charset?: string;
    headers: Record<string, string>;
    translations: Record<string, Record<string, PoTranslation>>;
  }
  export const po: {
    parse(input: Buffer | string, options?: { defaultCharset?: string; validation?: boolean }): PoData;
    compile(data: PoData, options?: { foldLength?: number }): Buffer;
  };
  const gettextParser: { po: typeof po };
  export default gettextParser;
}

declare module 'xliff' {
  export interface XliffJs {
    sourceLanguage?: string;
    targetLanguage?: string;
    resources: Record<string, Record<string, { source?: unknown; target?: unknown; note?: unknown }>>;
  }
  export function jsToXliff12(js: XliffJs, options?: { indent?: string }): Promise<string>;
  export function xliff12ToJs(xml: string, options?: Record<string, unknown>): Promise<XliffJs>;
}
