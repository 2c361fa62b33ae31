import { describe, expect, it } from 'vitest';
import { isLocale, localeField, toBcp47 } from './locale.js';

describe('locales', () => {
  it('takes the seed’s spelling and refuses others', () => {
    for (const ok of ['en', 'de', 'pt_BR', 'zh_Hant_TW', 'gsw']) expect(localeField.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['pt-BR', 'x', 'EN', 'en_', 'a'.repeat(36), `en_${'a'.repeat(8)}_${'b'.repeat(8)}_cc`])
      expect(localeField.safeParse(bad).success, bad).toBe(false);
    expect(isLocale('pt_BR')).toBe(true);
    expect(isLocale('pt-BR')).toBe(false);
  });

  it('gives Intl the BCP 47 form', () => {
    expect(toBcp47('pt_BR')).toBe('pt-BR');
    expect(toBcp47('zh_hant_tw')).toBe('zh-Hant-TW');
    expect(toBcp47('es_419')).toBe('es-419');
    expect(toBcp47('en')).toBe('en');
    expect(new Intl.NumberFormat(toBcp47('pt_BR')).resolvedOptions().locale).toBe('pt-BR');
  });
});
