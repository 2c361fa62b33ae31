import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectPath } from '../kernel/paths.js';
import { localeDirectoryErrors } from '../plugins/i18n/catalogue.js';

/**
 * The catalogues the instance ships (issue 31): German and French translate every English key,
 * Arabic at least the shell, the account screens (sign-in, preferences), the errors, the connections
 * and the data grid, to prove right-to-left on the main screens;
 * every shipped text passes the same ICU check as a text written in the editor (i18n/icu-check.ts:
 * it parses, names the source's arguments with their kinds, and every plural or select has `other`).
 */
const DIR = projectPath('i18n');
/** The namespaces Arabic translates whole; the rest fall back to English. */
const ARABIC_WHOLE = ['shell', 'account', 'errors', 'connections', 'data'];

describe('the shipped catalogues', () => {
  it.each(['de', 'fr'])('%s translates every English key, free of format errors', (locale) => {
    expect(localeDirectoryErrors(DIR, locale, { missing: true })).toEqual([]);
  });

  it('ar is free of format errors and whole for the shell, account, errors, connections and data', () => {
    for (const ns of ARABIC_WHOLE) expect(existsSync(`${DIR}/ar/${ns}.json`), ns).toBe(true);
    const problems = localeDirectoryErrors(DIR, 'ar', { missing: true });
    expect(problems.filter((p) => p.kind !== 'missing' || ARABIC_WHOLE.includes(p.namespace))).toEqual([]);
  });
});
