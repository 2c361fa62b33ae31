import { describe, expect, it } from 'vitest';
import messages from '../i18n/en/shell.json' with { type: 'json' };
import { firstPartyPlugins } from '../plugins/index.js';

/*
 * A refusal names the missing permission in words (dashboard/src/ui.tsx, permissionLabel): the
 * shell's catalogue holds each first-party permission's label as `permission.<name>`, the same
 * words its plugin declares (what GET /permissions/catalog answers, which a refused person may
 * not read). This keeps the two lists equal.
 */
describe("the dashboard's permission labels", () => {
  it('name every first-party permission with the label its plugin declares, and no other', () => {
    const declared = Object.fromEntries(firstPartyPlugins.flatMap((p) => (p.permissions ?? []).map((perm) => [`permission.${perm.name}`, perm.label])));
    const catalogued = Object.fromEntries(Object.entries(messages).filter(([id]) => id.startsWith('permission.')));
    expect(Object.keys(declared).length).toBeGreaterThan(30);
    // The catalogue's words are typographic (’ for an apostrophe); otherwise the same.
    expect(Object.fromEntries(Object.entries(catalogued).map(([id, text]) => [id, text.replace(/’/g, "'")]))).toEqual(declared);
  });
});
