import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { MAX_MAPPINGS_CHARS, mapStack, readSourceMap } from './source-map.js';

const SOURCE = `type Order = { total: number };

export function check(order: Order): void {
  if (order.total < 0) throw new Error('negative total');
}
`;

describe("an add-on's stack, mapped to its source", () => {
  it('maps server.js frames through the map, keeps the first as the source line, and leaves out the instance frames', async () => {
    const out = await esbuild.transform(SOURCE, { loader: 'ts', format: 'esm', sourcemap: 'external', sourcefile: 'server.ts', sourcesContent: true });
    const line = out.code.split('\n').findIndex((l) => l.includes('throw new Error')) + 1;
    const column = out.code.split('\n')[line - 1]!.indexOf('throw') + 1;
    const stack = [
      'Error: negative total',
      `    at check (addon:shop@1.2.0/server.js:${line}:${column})`,
      '    at run (svc:bootstrap.js:146:27)',
      '    at (<isolated-vm boundary>)',
      '    at handleCall (file:///srv/svc-admin/kernel/sandbox/sandbox-host-worker.ts:1:6999)',
    ].join('\n');
    const mapped = mapStack(stack, readSourceMap(out.map), out.code);
    expect(mapped.stack).toBe('Error: negative total\n    at check (server.ts:4:24)');
    expect(mapped.source).toEqual({ file: 'server.ts', line: 4, column: 24, text: "  if (order.total < 0) throw new Error('negative total');" });
  });

  it("without a (usable) map, points at server.js's own line", () => {
    const code = "const a = 1;\nthrow new Error('at load');\n";
    const huge = JSON.stringify({ version: 3, sources: ['server.ts'], mappings: 'AAAA;'.repeat(MAX_MAPPINGS_CHARS / 5 + 1) });
    for (const map of [null, '{"version":2}', 'not json', huge])
      expect(mapStack('Error: at load\n    at addon:shop@1.2.0/server.js:2:7', readSourceMap(map), code)).toEqual({
        stack: 'Error: at load\n    at addon:shop@1.2.0/server.js:2:7',
        source: { file: 'server.js', line: 2, column: 7, text: "throw new Error('at load');" },
      });
  });
});
