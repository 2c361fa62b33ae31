export const DECISIONS_FILE: string;
export const START: string;
export const END: string;
export interface Entry {
  id: string;
  title: string;
  anchor: string;
  line: number;
  body: string[];
  namespace: { letters: string; name: string; code: string[] | null };
}
export interface Parsed {
  namespaces: Entry['namespace'][];
  entries: Entry[];
  byId: Map<string, Entry>;
}
export function slug(text: string): string;
export function readEntries(text: string): Parsed;
export function codePaths(entry: Entry): string[];
export function relations(entries: Entry[], byId: Map<string, Entry>): Map<string, { amended: Set<string>; superseded: Set<string> }>;
export function renderIndex(parsed: Parsed): string;
export function rebuild(text: string): string;
