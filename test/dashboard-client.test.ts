import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntlMessageFormat } from 'intl-messageformat';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { messages } from './messages.js';
import { OPENAPI_TYPES, generateApiTypes } from '../scripts/gen-api.mjs';

describe("the dashboard's typed API client", () => {
  it('has types generated from the current docs/openapi.json (run `npm run gen:api`)', async () => {
    expect(readFileSync(OPENAPI_TYPES, 'utf8')).toBe(await generateApiTypes());
  });

  it('types the sign-in routes the dashboard uses', async () => {
    const text = await generateApiTypes();
    for (const path of [
      '/api/v1/setup/state',
      '/api/v1/setup/super-admin',
      '/api/v1/auth/login',
      '/api/v1/auth/2fa/verify',
      '/api/v1/auth/password/forgot',
      '/api/v1/auth/password/reset',
      '/api/v1/me',
    ]) {
      expect(text).toContain(`"${path}": {`);
    }
  });
});

const DASHBOARD_SRC = fileURLToPath(new URL('../dashboard/src/', import.meta.url));
/** Attributes of HTML elements a person sees or hears. */
const TEXT_ATTRIBUTES = new Set(['aria-label', 'aria-description', 'aria-valuetext', 'title', 'placeholder', 'alt', 'value']);

function tsxFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsxFiles(join(dir, e.name)) : e.name.endsWith('.tsx') ? [join(dir, e.name)] : [],
  );
}

/** Text in JSX, and text attributes of HTML elements given as string literals: what escaped the catalogue. */
function literalsIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node) && /\p{L}/u.test(node.text)) found.push(node.text.trim());
    if (ts.isJsxAttribute(node) && TEXT_ATTRIBUTES.has(node.name.getText(source))) {
      const tag = (node.parent.parent as ts.JsxOpeningLikeElement).tagName.getText(source);
      const init = node.initializer;
      const literal = init && (ts.isStringLiteral(init) || (ts.isJsxExpression(init) && init.expression && ts.isStringLiteralLike(init.expression)));
      // An option's value is what the form sends, not what it shows (its children are).
      const unseen = tag === 'option' && node.name.getText(source) === 'value';
      if (/^[a-z]/.test(tag) && literal && !unseen) found.push(`${tag} ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the dashboard's messages", () => {
  it('are all valid ICU messages', () => {
    for (const [id, text] of Object.entries(messages)) expect(() => new IntlMessageFormat(text, 'en'), id).not.toThrow();
  });

  it('are the only text of the components: no string literal in JSX text or in a text attribute', () => {
    const files = tsxFiles(DASHBOARD_SRC);
    expect(files.length).toBeGreaterThan(5);
    const literals = files.flatMap((f) => literalsIn(f).map((l) => `${relative(DASHBOARD_SRC, f)}: ${l}`));
    expect(literals).toEqual([]);
  });

  it('finds a literal when there is one (the check can fail)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-literal-')), 'x.tsx');
    writeFileSync(
      file,
      'export const X = () => <><button aria-label="Close" title={"Shut"}>Close it</button><option value="asc">{t}</option><input value="Go" /></>;\n',
    );
    expect(literalsIn(file)).toEqual(['button aria-label="Close"', 'button title={"Shut"}', 'Close it', 'input value="Go"']);
  });
});
