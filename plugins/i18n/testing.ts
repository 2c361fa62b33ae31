import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A catalogue directory of made-up locales for tests (the real i18n/ changes as translations
 * land): en with `core`, `shell` and an empty `custom`; `xa` translating most of it; `xa_BB`
 * translating one key (it falls back to xa); `xb` with a format error in its file.
 */
export function fixtureCatalogue(): string {
  const dir = mkdtempSync(join(tmpdir(), 'i18n-fixture-'));
  const write = (locale: string, ns: string, messages: Record<string, string>) => {
    mkdirSync(join(dir, locale), { recursive: true });
    writeFileSync(join(dir, locale, `${ns}.json`), JSON.stringify(messages, null, 2));
  };
  write('en', 'core', {
    'core.hello': 'Hello {name}',
    'core.rows': '{count, plural, one {# row} other {# rows}}',
    'core.save': 'Save',
    'core.bold': 'Read <b>this</b>',
  });
  write('en', 'shell', { 'nav.home': 'Home', 'nav.settings': 'Settings' });
  write('en', 'custom', {});
  write('xa', 'core', { 'core.hello': 'Xallo {name}', 'core.rows': '{count, plural, one {# xow} other {# xows}}', 'core.save': 'Xave' });
  write('xa', 'shell', { 'nav.home': 'Xome' });
  write('xa_BB', 'core', { 'core.save': 'Bave' });
  write('xb', 'core', { 'core.hello': 'Bello {nom}' });
  // Not a locale: ignored.
  mkdirSync(join(dir, 'not-a-locale'));
  return dir;
}
