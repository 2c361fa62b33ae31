import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A process that runs ticks, collects everything while none is pending (as the idle collector
 * and V8's memory reducer do), runs ticks again, and prints what V8 remembers about nextTick's
 * record literal: one state per key, from `%DebugPrint` of the function.
 */
function tickFeedbackAfterIdleCollection(pinned: boolean): { states: string[]; sameShape: boolean | null } {
  const script = `
    ${pinned ? "const { pinNextTickShape } = await import('./kernel/runtime/next-tick-shape.ts');" : ''}
    const { executionAsyncResource } = await import('node:async_hooks');
    const print = new Function('f', '%DebugPrint(f)');
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const ticks = (n, done) => { let i = 0; const step = () => (++i < n ? process.nextTick(step) : setImmediate(done)); process.nextTick(step); };
    ticks(1000, () => {
      globalThis.gc();
      globalThis.gc();
      ticks(1000, () => {
        process.nextTick(() => {
          ${pinned ? "process.stderr.write(JSON.stringify({ sameShape: sameMap(pinNextTickShape(), executionAsyncResource()) }) + '\\n');" : ''}
          print(process.nextTick);
        });
      });
    });
  `;
  // V8 prints to the C stdout, which a pipe can lose at exit: a file keeps all of it.
  const dir = mkdtempSync(join(tmpdir(), 'tick-shape-'));
  const out = openSync(join(dir, 'stdout'), 'w');
  let run;
  let printed: string;
  try {
    run = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', out, 'pipe'],
      timeout: 30_000,
    });
  } finally {
    closeSync(out);
    printed = readFileSync(join(dir, 'stdout'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
  }
  if (run.status !== 0) throw new Error(`probe failed (${String(run.status)}): ${run.stderr}`);
  const states = [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
  const said = run.stderr.split('\n').find((l) => l.startsWith('{'));
  return { states, sameShape: said ? (JSON.parse(said) as { sameShape: boolean }).sameShape : null };
}

describe("nextTick's record shape (decisions K38)", () => {
  it('without the pin, a collection while no tick is pending makes V8 give up on the record literal (the control)', () => {
    const { states } = tickFeedbackAfterIdleCollection(false);
    expect(states).toHaveLength(4);
    expect(states.slice(1)).toEqual(['MEGAMORPHIC', 'MEGAMORPHIC', 'MEGAMORPHIC']);
  });

  it('with the pin, every key of the literal keeps its one hidden class, which is the pinned object’s', () => {
    const { states, sameShape } = tickFeedbackAfterIdleCollection(true);
    expect(states).toEqual(['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
    expect(sameShape).toBe(true);
  });
});
