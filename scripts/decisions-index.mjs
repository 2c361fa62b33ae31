// Rebuilds the index of docs/decisions.md from the entries' headings: `npm run docs:decisions`.
// test/decisions-index.test.ts fails when the committed index is stale.
//
// Everything in the index is read from the entries, so a merge never has to be resolved by hand
// inside it: whatever the index section holds (an old table, hand-written lines, a merge's
// conflict markers) is thrown away and written again. The rules:
// - An entry is a `## <ID>. <title>` heading, ID = namespace letters + number (K12, AO3). Its
//   namespace is the `# <NS>: <name>` heading it sits under, and must be the ID's letters.
// - Status: `superseded by Y` when entry Y says "supersedes X" or X says "superseded by Y";
//   `amended by Y` when Y says "amends X" or X says "amended by Y" (title or body, any case,
//   several ids as "amends AO9, AO18" or "AO9 and AO18"); else `current`. Ids that are not entries
//   (K33's S1–S10) are ignored.
// - Code: the backticked paths of the entry's `Code:` line (its last line), else those of its
//   namespace's `Code:` line (the line under the `# <NS>: <name>` heading), else none. Nothing is
//   guessed from the prose: its first backticked path is as often a test, a URL or a neighbour.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const DECISIONS_FILE = `${root}docs/decisions.md`;

export const START = '<!-- index:start -->';
export const END = '<!-- index:end -->';
const INDEX_HEADING = '## Index';
const ID = '[A-Z]+\\d+';
const ENTRY_RE = new RegExp(`^## (${ID})\\. (.+)$`);
const NAMESPACE_RE = /^# ([A-Z]+): (.+)$/;
const CONFLICT_RE = /^(<{7}|={7}|>{7})( |$)/;
const ID_LIST = `(${ID}(?:(?:\\s*,\\s*|\\s+and\\s+)${ID})*)`;
const RELATIONS = [
  // [pattern, does the match name the entry that changes (forward) or the one changed (backward)?, kind]
  [new RegExp(`\\bsupersedes\\s+${ID_LIST}`, 'gi'), 'forward', 'superseded'],
  [new RegExp(`\\bsuperseded\\s+by\\s+${ID_LIST}`, 'gi'), 'backward', 'superseded'],
  [new RegExp(`\\bamends\\s+${ID_LIST}`, 'gi'), 'forward', 'amended'],
  [new RegExp(`\\bamended\\s+by\\s+${ID_LIST}`, 'gi'), 'backward', 'amended'],
];

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `_` or `-`), spaces → `-`. */
export function slug(text) {
  return text
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

const idNumber = (id) => Number(id.replace(/^[A-Z]+/, ''));
const idLetters = (id) => id.replace(/\d+$/, '');

/** Parses the entries of a decisions file; throws one message listing every problem found. */
export function readEntries(text) {
  const lines = text.split('\n');
  const problems = [];
  const namespaces = [];
  const entries = [];
  const seenSlugs = new Map();
  let namespace = null;
  let entry = null;
  let fenced = false;
  let inIndex = false;
  lines.forEach((line, i) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) {
      if (entry) entry.body.push(line);
      return;
    }
    const heading = /^(#{1,6}) (.+)$/.exec(line);
    if (heading) {
      inIndex = line === INDEX_HEADING;
      // Anchors are made once per page, later duplicates get -1, -2: count every heading.
      const base = slug(heading[2]);
      const n = seenSlugs.get(base) ?? 0;
      seenSlugs.set(base, n + 1);
      const anchor = n === 0 ? base : `${base}-${n}`;
      const ns = NAMESPACE_RE.exec(line);
      const en = ENTRY_RE.exec(line);
      if (ns) {
        namespace = { letters: ns[1], name: ns[2], code: null };
        if (namespaces.some((x) => x.letters === ns[1])) problems.push(`line ${i + 1}: namespace ${ns[1]} has a second heading`);
        namespaces.push(namespace);
        entry = null;
      } else if (en) {
        entry = { id: en[1], title: en[2], anchor, line: i + 1, body: [], namespace };
        if (!namespace || namespace.letters !== idLetters(en[1])) {
          problems.push(`line ${i + 1}: ${en[1]} sits under ${namespace ? `# ${namespace.letters}` : 'no namespace'}; move it under # ${idLetters(en[1])}`);
        }
        entries.push(entry);
      } else if (heading[1].length <= 2) {
        entry = null;
      }
      if (entry && !en) entry.body.push(line);
      return;
    }
    if (CONFLICT_RE.test(line) && !inIndex) problems.push(`line ${i + 1}: a merge conflict marker outside the index; resolve it first`);
    if (entry) entry.body.push(line);
    else if (namespace && !namespace.code && CODE_LINE.test(line)) namespace.code = pathsOf(line);
  });
  const byId = new Map();
  for (const e of entries) {
    if (byId.has(e.id)) problems.push(`${e.id} is used twice (lines ${byId.get(e.id).line} and ${e.line}); give the newer one the next free id`);
    byId.set(e.id, e);
  }
  if (problems.length) throw new Error(`docs/decisions.md:\n  ${problems.join('\n  ')}`);
  return { namespaces, entries, byId };
}

const CODE_LINE = /^Code: /;
const pathsOf = (line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The paths an entry's code lives in, by the rule in this file's header. */
export function codePaths(entry) {
  const own = entry.body.findLast((l) => CODE_LINE.test(l));
  return own ? pathsOf(own) : (entry.namespace.code ?? []);
}

/** For each entry id, who amended or superseded it. */
export function relations(entries, byId) {
  const status = new Map(entries.map((e) => [e.id, { amended: new Set(), superseded: new Set() }]));
  for (const e of entries) {
    const text = [e.title, ...e.body].join('\n');
    for (const [re, direction, kind] of RELATIONS) {
      for (const m of text.matchAll(re)) {
        for (const other of m[1].match(new RegExp(ID, 'g'))) {
          if (!byId.has(other) || other === e.id) continue;
          const [changed, by] = direction === 'forward' ? [other, e.id] : [e.id, other];
          status.get(changed)[kind].add(by);
        }
      }
    }
  }
  return status;
}

const cell = (s) => s.replace(/\|/g, '\\|');

/** The index section (from `## Index` up to the first namespace heading) for these entries. */
export function renderIndex({ namespaces, entries, byId }) {
  const status = relations(entries, byId);
  const link = (id) => `[${id}](#${byId.get(id).anchor})`;
  const byNumber = (a, b) => idNumber(a) - idNumber(b);
  const out = [
    INDEX_HEADING,
    '',
    'Generated from the entries by `npm run docs:decisions` (the rules are in scripts/decisions-index.mjs): do',
    'not edit it; add the entry and run the script. Status: `amended by Y` / `superseded by Y` when entry Y',
    'says "amends X" / "supersedes X" (or X says "amended by Y"). Code: the paths of the entry\'s last line',
    "`Code: ...`, else of its namespace's `Code:` line.",
    '',
    START,
  ];
  for (const ns of namespaces) {
    const own = entries.filter((e) => idLetters(e.id) === ns.letters).sort((a, b) => byNumber(a.id, b.id));
    if (!own.length) continue;
    out.push('', `**${ns.letters}: ${ns.name}**`, '', '| Id | Decision | Status | Code |', '| --- | --- | --- | --- |');
    for (const e of own) {
      const s = status.get(e.id);
      const said = [];
      if (s.superseded.size) said.push(`superseded by ${[...s.superseded].sort(byNumber).map(link).join(', ')}`);
      if (s.amended.size) said.push(`amended by ${[...s.amended].sort(byNumber).map(link).join(', ')}`);
      const code = codePaths(e)
        .map((p) => `\`${p}\``)
        .join(', ');
      out.push(`| ${link(e.id)} | ${cell(e.title)} | ${said.join('; ') || 'current'} | ${cell(code) || '—'} |`);
    }
  }
  out.push('', END, '');
  return out.join('\n');
}

/** The decisions file with its index section written again from its entries. */
export function rebuild(text) {
  const parsed = readEntries(text);
  const lines = text.split('\n');
  const start = lines.indexOf(INDEX_HEADING);
  if (start < 0) throw new Error(`docs/decisions.md has no "${INDEX_HEADING}" heading`);
  const end = lines.findIndex((l, i) => i > start && NAMESPACE_RE.test(l));
  if (end < 0) throw new Error('docs/decisions.md has no namespace heading after its index');
  return [...lines.slice(0, start), renderIndex(parsed), ...lines.slice(end)].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const before = readFileSync(DECISIONS_FILE, 'utf8');
    const after = rebuild(before);
    if (after !== before) writeFileSync(DECISIONS_FILE, after);
    console.log(after === before ? 'docs/decisions.md: index already current' : 'docs/decisions.md: index rewritten');
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  }
}
