import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { SandboxHost, type SandboxAddon } from './host.js';

/**
 * A cold start (the add-on's isolate, bootstrap and module made for its first call) is the
 * platform's work: the call's wall time starts once the add-on's own code begins. Under load that
 * setup could use up the whole wall time, and the first call after an install or a restart
 * answered ADDON_TIMEOUT though the add-on did nothing slow. Through a real sandbox child with a
 * short wall time and a module big enough that compiling it alone takes several times as long.
 */
const WALL_MS = 200;
const sandbox = new SandboxHost({ wallMs: WALL_MS });
afterAll(() => sandbox.close());

const context = { instance: null, settings: {}, connection: null };

/** About 24 MB of a function never called: V8 still reads it all when it compiles the module (~0.4 s here on a quiet machine). */
function bigModule(body: string): string {
  const filler = 'x = x + 1;\n'.repeat((24 * 1024 * 1024) / 11);
  return `function unused(x) {\n${filler} return x; }\n${body}`;
}

const addon = (key: string, code: string): SandboxAddon => ({ key, version: '1.0.0', code, limits: { memoryMb: 128, cpuMs: 150 }, capabilities: [] });

describe('a cold start in the sandbox', () => {
  it('does not count the making of the context against the wall time', async () => {
    const started = Date.now();
    const value = await sandbox.call({
      addon: addon('big', bigModule(`export default { actions: { hello: (ctx, input) => ({ hello: input }) } };`)),
      target: { kind: 'action', name: 'hello' },
      context,
      input: 'there',
    });
    expect(value).toEqual({ hello: 'there' });
    // The setup did take longer than the wall time: otherwise this proves nothing.
    expect(Date.now() - started).toBeGreaterThan(WALL_MS);
  });

  it('still stops the add-on’s own code after a cold start (ADDON_TIMEOUT)', async () => {
    const err = await sandbox
      .call({
        addon: addon('big-sleeper', bigModule(`export default { actions: { spin: () => { for (;;) {} } } };`)),
        target: { kind: 'action', name: 'spin' },
        context,
        input: null,
      })
      .then(
        () => null,
        (e: unknown) => e as AppError,
      );
    expect(err?.code).toBe('ADDON_TIMEOUT');
  });
});
