import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../i18n/icu-check.js';
import { readSourceCatalogue } from '../scripts/gen-messages.mjs';

/**
 * The Arabic catalogue that proves the dashboard mirrored (issue 31): the shell, the account, the
 * errors, the connections and the data grid, whole. Each file has exactly the English ids, and each message passes the ICU check against its
 * English source (the same check the server's PUT and import run), with the plural categories
 * Arabic has wherever the source counts something.
 */
const english = readSourceCatalogue() as Record<string, Record<string, string>>;
const arabic = (ns: string) => JSON.parse(readFileSync(new URL(`../i18n/ar/${ns}.json`, import.meta.url), 'utf8')) as Record<string, string>;
const CATEGORIES = new Intl.PluralRules('ar').resolvedOptions().pluralCategories;

describe.each(['shell', 'account', 'errors', 'connections', 'data'])('i18n/ar/%s.json', (ns) => {
  const ar = arabic(ns);
  const en = english[ns]!;

  it('translates every English id, and no other', () => {
    expect(Object.keys(ar).sort()).toEqual(Object.keys(en).sort());
  });

  it('passes the ICU check against the English source', () => {
    const problems = Object.entries(ar).flatMap(([id, text]) => checkMessage(text, en[id]).map((p) => `${id}: ${p.kind} ${p.message}`));
    expect(problems).toEqual([]);
  });

  it('gives each plural every Arabic category', () => {
    const short = Object.entries(ar)
      .filter(([, text]) => /, plural,/.test(text))
      .flatMap(([id, text]) => CATEGORIES.filter((c) => c !== 'zero' && !new RegExp(`\\b${c} \\{`).test(text)).map((c) => `${id} lacks ${c}`));
    expect(short).toEqual([]);
  });
});
