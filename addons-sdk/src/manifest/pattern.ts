import { createRequire } from 'node:module';

/**
 * A setting's `pattern`, checked by RE2 (re2-wasm: WebAssembly, no native build): matching time
 * is linear in the value's length whatever the author wrote, so a pattern like `^(a+)+$` cannot
 * hold the API thread (JavaScript's backtracking RegExp took 30 s on 45 characters). RE2 has no
 * backreferences or lookarounds: such patterns are refused when the package is checked.
 */
interface Re2 {
  test(value: string): boolean;
}
type Re2Constructor = new (source: string, flags: string) => Re2;

let constructor: Re2Constructor | null = null;
/** Loaded on first use: the engine's WebAssembly is ~1 MB, and most instances never check a pattern. */
function re2(): Re2Constructor {
  constructor ??= (createRequire(import.meta.url)('re2-wasm') as { RE2: Re2Constructor }).RE2;
  return constructor;
}

const compiled = new Map<string, Re2 | { problem: string }>();
const CACHE_MAX = 256;

function compile(source: string): Re2 | { problem: string } {
  let hit = compiled.get(source);
  if (hit) return hit;
  try {
    new RegExp(source, 'u');
    try {
      hit = new (re2())(source, 'u');
    } catch (err) {
      const why = (err instanceof Error ? err.message : String(err)).replace(/^Invalid regular expression: \/.*\/u: /s, '');
      hit = { problem: `Not a pattern the instance can check in linear time (RE2 syntax: no backreferences or lookarounds): ${why}.` };
    }
  } catch {
    hit = { problem: 'Not a valid regular expression.' };
  }
  if (compiled.size >= CACHE_MAX) compiled.clear();
  compiled.set(source, hit);
  return hit;
}

/** Why a setting's pattern is refused, or null when it is one RE2 checks. */
export function settingPatternProblem(source: string): string | null {
  const c = compile(source);
  return 'problem' in c ? c.problem : null;
}

/** Whether `value` matches the pattern (RE2, `u`); null when the pattern is one RE2 cannot check. */
export function matchesSettingPattern(source: string, value: string): boolean | null {
  const c = compile(source);
  return 'problem' in c ? null : c.test(value);
}
