import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../i18n/icu-check.js';
import { errorCodes } from '../kernel/errors.js';
import { projectPath } from '../kernel/paths.js';
import { buildRouteTree } from '../kernel/plugin/route-tree.js';
import { firstPartyPlugins } from '../plugins/index.js';

/**
 * The `errors` namespace (decisions IN7): one English message per API error code, so the
 * dashboard says an error in the person's language while the envelope's `message` stays the
 * API's English. A code registered without its message, or a message left for a code gone, fails here.
 */
describe('the errors namespace', () => {
  buildRouteTree(firstPartyPlugins); // registers every plugin's codes
  const messages = JSON.parse(readFileSync(projectPath('i18n', 'en', 'errors.json'), 'utf8')) as Record<string, string>;
  const codes = [...errorCodes().keys()];

  it('has a message for every registered error code', () => {
    const missing = codes.filter((code) => messages[`errors.${code}`] === undefined).map((code) => `errors.${code}: "${errorCodes().get(code)!.message}"`);
    expect(missing, 'add these to i18n/en/errors.json (then npm run gen:messages)').toEqual([]);
  });

  it('has no message for a code nobody registers', () => {
    expect(Object.keys(messages).filter((id) => !id.startsWith('errors.') || !errorCodes().has(id.slice('errors.'.length)))).toEqual([]);
  });

  it('writes each as a valid ICU message without placeholders', () => {
    const bad = Object.entries(messages).flatMap(([id, text]) => checkMessage(text, 'no placeholders').map((p) => `${id}: ${p.kind} ${p.message}`));
    expect(bad).toEqual([]);
  });
});
