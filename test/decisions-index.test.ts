import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DECISIONS_FILE, END, START, codePaths, readEntries, rebuild, relations } from '../scripts/decisions-index.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const text = readFileSync(DECISIONS_FILE, 'utf8');

describe('the index of docs/decisions.md', () => {
  it('is not stale: it is what the entries make (run `npm run docs:decisions`)', () => {
    expect(text).toBe(rebuild(text));
  });

  it('names code paths that exist', () => {
    const missing = readEntries(text).entries.flatMap((e) =>
      codePaths(e)
        .filter((p) => !existsSync(`${root}${p}`))
        .map((p) => `${e.id}: ${p}`),
    );
    expect(missing, "update the entry's (or its namespace's) `Code:` line").toEqual([]);
  });
});

describe('scripts/decisions-index.mjs', () => {
  const doc = (body: string) => `# Decisions\n\n## Index\n\n${body}`;
  const entries = [
    '# K: Kernel\n\nCode: `kernel`\n\n## K1. First\nSaid once.\n\n## K2. Second (amends K1)\nMore.\nCode: `kernel/a.ts`, `kernel/b.ts`\n',
    '# EX: Exports\n\n## EX1. `a|b` and __proto__\nOld.\n\n## EX2. New\nThis supersedes EX1 and amends K2, K1; S5 is not an entry.\n',
  ].join('\n');

  it('reads status, code paths and GitHub anchors from the entries', () => {
    const parsed = readEntries(doc(entries));
    const byId = (id: string) => parsed.byId.get(id)!;
    expect(byId('EX1').anchor).toBe('ex1-ab-and-__proto__');
    expect(codePaths(byId('K1'))).toEqual(['kernel']);
    expect(codePaths(byId('K2'))).toEqual(['kernel/a.ts', 'kernel/b.ts']);
    expect(codePaths(byId('EX1'))).toEqual([]);
    const status = relations(parsed.entries, parsed.byId);
    expect([...status.get('K1')!.amended].sort()).toEqual(['EX2', 'K2']);
    expect([...status.get('EX1')!.superseded]).toEqual(['EX2']);
    const index = rebuild(doc(entries));
    expect(index).toContain('| [EX1](#ex1-ab-and-__proto__) | `a\\|b` and __proto__ | superseded by [EX2](#ex2-new) | — |');
  });

  it('rebuilds the whole index from the headings, whatever a merge left in it', () => {
    const clean = rebuild(doc(entries));
    const merged = doc(
      ['<<<<<<< HEAD', START, '| stale | table |', END, '=======', '- **K: Kernel**: [K1](#k1-first) First', '>>>>>>> other', '', entries].join('\n'),
    );
    expect(rebuild(merged)).toBe(clean);
    expect(rebuild(clean)).toBe(clean);
  });

  it('refuses an id used twice, an entry under another namespace, and a conflict left in an entry', () => {
    const twice = doc(`${entries}\n## K2. Added on another branch\n`);
    expect(() => rebuild(twice)).toThrow(/K2 is used twice/);
    expect(() => rebuild(twice)).toThrow(/K2 sits under # EX; move it under # K/);
    expect(() => rebuild(doc(`${entries}<<<<<<< HEAD\n`))).toThrow(/merge conflict marker outside the index/);
  });
});
