import { describe, expect, it } from 'vitest';
import { projectPath } from '../../kernel/api.js';
import { localeDirectoryErrors, readCatalogue } from './catalogue.js';
import { fixtureCatalogue } from './testing.js';

describe('the shipped catalogue', () => {
  it('reads namespaces from en and locales from the directories named like one', () => {
    const c = readCatalogue(fixtureCatalogue());
    expect(c.namespaces).toEqual(['core', 'custom', 'shell']);
    expect(c.locales).toEqual(['en', 'xa', 'xa_BB', 'xb']);
    expect(c.messages.get('xa_BB')!.get('shell')).toEqual({});
  });

  it('lists a locale directory’s format errors, and its missing keys when asked', () => {
    const dir = fixtureCatalogue();
    expect(localeDirectoryErrors(dir, 'xb')).toEqual([
      expect.objectContaining({ locale: 'xb', namespace: 'core', key: 'core.hello', kind: 'placeholders', expected: ['{name}'], found: ['{nom}'] }),
    ]);
    expect(localeDirectoryErrors(dir, 'xa', { missing: true }).map((e) => `${e.kind} ${e.key}`)).toEqual(['missing core.bold', 'missing nav.settings']);
  });

  it('finds the English source of the repository free of format errors', () => {
    expect(localeDirectoryErrors(projectPath('i18n'), 'en')).toEqual([]);
  });
});
