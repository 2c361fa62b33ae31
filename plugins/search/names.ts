import MiniSearch, { type SearchOptions } from 'minisearch';

/** One thing search can find by its name; `E` adds what its visibility rule reads. */
export interface NameEntry {
  /** Unique within its type. */
  id: string;
  title: string;
  subtitle: string;
  /** The dashboard path that opens it. */
  url: string;
  /** More words to match (a slug, an e-mail, a key); not shown. */
  words?: string;
}

export interface NameHit<E extends NameEntry> {
  entry: E;
  score: number;
}

/** Accents and case do not count: "Café" is found by "cafe". */
export function foldTerm(term: string): string {
  return term
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/**
 * Typo tolerance by a term's length: none below 4 characters (too many near neighbours), one edit
 * up to 7, two from 8 (decisions SR2).
 */
export function fuzziness(term: string): number {
  return term.length < 4 ? 0 : term.length < 8 ? 1 : 2;
}

const SEARCH: SearchOptions = {
  prefix: true,
  fuzzy: (term) => fuzziness(term) || false,
  combineWith: 'AND',
  boost: { title: 2 },
};

/**
 * The names of one type, in a MiniSearch index (decisions SR2). Only the terms are indexed and no
 * field is stored in MiniSearch: the entries live once, in `entries`. `reset` builds a new index
 * and swaps it in, so a search under way reads the old one whole.
 */
export class NameIndex<E extends NameEntry> {
  private index = NameIndex.empty();
  private entries = new Map<string, E>();

  private static empty(): MiniSearch {
    return new MiniSearch({
      fields: ['title', 'subtitle', 'words'],
      storeFields: [],
      processTerm: (term) => foldTerm(term) || null,
      searchOptions: SEARCH,
    });
  }

  get size(): number {
    return this.entries.size;
  }

  reset(list: readonly E[]): void {
    const index = NameIndex.empty();
    const entries = new Map<string, E>();
    for (const e of list) entries.set(e.id, e);
    index.addAll([...entries.values()].map((e) => ({ id: e.id, title: e.title, subtitle: e.subtitle, words: e.words ?? '' })));
    this.index = index;
    this.entries = entries;
  }

  all(): IterableIterator<E> {
    return this.entries.values();
  }

  /** Best first, only entries `visible` admits, at most `limit`. */
  search(q: string, limit: number, visible: (e: E) => boolean): NameHit<E>[] {
    const out: NameHit<E>[] = [];
    for (const r of this.index.search(q)) {
      const entry = this.entries.get(r.id as string);
      if (!entry || !visible(entry)) continue;
      out.push({ entry, score: Math.round(r.score * 1000) / 1000 });
      if (out.length >= limit) break;
    }
    return out;
  }
}
