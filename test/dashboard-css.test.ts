import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The dashboard's style sheets are plain CSS without nesting. Browsers take CSS nesting now, so a
 * rule missing its closing brace is not an error anywhere: every rule after it becomes nested in it
 * and silently stops applying (Settings → Storage lost its button row and its radio layout that
 * way). This finds a rule inside a rule, and an unclosed or extra brace, with the line.
 */
const SRC = resolve(import.meta.dirname, '../dashboard/src');

function styleSheets(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return styleSheets(path);
    return entry.name.endsWith('.css') ? [path] : [];
  });
}

/** Problems of one sheet: a rule nested in a rule (not in an at-rule such as @media), unbalanced braces. */
function nestingProblems(css: string): string[] {
  const problems: string[] = [];
  // Comments and strings out, with their line breaks kept so lines still count right.
  const text = css
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (s) => s.replace(/[^\n]/g, ' '));
  const open: { atRule: boolean; line: number }[] = [];
  let line = 1;
  let prelude = '';
  for (const ch of text) {
    if (ch === '\n') line++;
    if (ch === '{') {
      const atRule = prelude.trim().startsWith('@');
      const parent = open[open.length - 1];
      if (parent && !parent.atRule && !atRule) problems.push(`line ${line}: a rule inside the rule opened on line ${parent.line} (a missing "}"?)`);
      open.push({ atRule, line });
      prelude = '';
    } else if (ch === '}') {
      if (!open.pop()) problems.push(`line ${line}: a "}" closes nothing`);
      prelude = '';
    } else if (ch === ';') prelude = '';
    else prelude += ch;
  }
  for (const block of open) problems.push(`line ${block.line}: a block never closed`);
  return problems;
}

describe('the dashboard’s style sheets', () => {
  it('finds a rule left open (the check itself)', () => {
    expect(nestingProblems('.a {\n  color: red;\n.b {\n  color: blue;\n}\n')).toEqual([
      'line 3: a rule inside the rule opened on line 1 (a missing "}"?)',
      'line 1: a block never closed',
    ]);
    expect(nestingProblems('@media (max-width: 10px) {\n  .a { color: red; }\n}\n/* { */ .b { content: "}"; }')).toEqual([]);
    expect(nestingProblems('.a { color: red; } }')).toEqual(['line 1: a "}" closes nothing']);
  });

  it('has no rule nested in a rule and no unbalanced brace in any sheet', () => {
    const sheets = styleSheets(SRC);
    expect(sheets.length).toBeGreaterThan(5);
    const found = sheets.flatMap((file) => nestingProblems(readFileSync(file, 'utf8')).map((p) => `${relative(SRC, file)} ${p}`));
    expect(found).toEqual([]);
  });
});
