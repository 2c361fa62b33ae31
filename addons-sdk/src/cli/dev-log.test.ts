import { describe, expect, it } from 'vitest';
import { formatLogEntry, type LogEntry } from './dev-log.js';

/*
 * Lines as the instance writes them (pino JSON). The failure's shape is the errors work's
 * (plugins/add-ons/runtime/addon-log.ts on its branch: err.stack mapped through server.js.map,
 * source {file, line, column, text}); recorded here so the printer is tested without it.
 */
const failure: LogEntry = JSON.parse(
  JSON.stringify({
    level: 50,
    time: 1764379200000,
    pid: 4242,
    hostname: 'dev',
    addon: 'my-notes',
    version: '0.1.0',
    call: { kind: 'action', name: 'add' },
    err: {
      message: "Cannot read properties of undefined (reading 'trim')",
      stack: "TypeError: Cannot read properties of undefined (reading 'trim')\n    at cleanTitle (server.ts:14:22)\n    at add (server.ts:38:21)",
    },
    source: { file: 'server.ts', line: 14, column: 22, text: '  const title = value.trim();' },
    msg: "add-on my-notes failed: Cannot read properties of undefined (reading 'trim') (server.ts:14:22)",
  }),
);

describe('svc-addon dev prints the instance log for the author', () => {
  it('a failure: message, where, the source line with a caret under the column, the mapped stack', () => {
    expect(formatLogEntry(failure, 'my-notes')).toEqual({
      error: true,
      lines: [
        "[my-notes] error add-on my-notes failed: Cannot read properties of undefined (reading 'trim') (server.ts:14:22) (action add)",
        '  at server.ts:14:22',
        '  14 |   const title = value.trim();',
        '     |                      ^',
        '    at cleanTitle (server.ts:14:22)',
        '    at add (server.ts:38:21)',
      ],
    });
  });

  it('a ctx.log line: level, message and its fields', () => {
    const line = { level: 30, time: 1, pid: 1, hostname: 'h', id: 7, list: [1, 2], addon: 'my-notes', version: '0.1.0', msg: 'note added' };
    expect(formatLogEntry(line, 'my-notes')).toEqual({ error: false, lines: ['[my-notes] info note added {"id":7,"list":[1,2]}'] });
    expect(formatLogEntry({ ...line, level: 40, msg: 'slow' }, 'my-notes')).toMatchObject({
      error: true,
      lines: ['[my-notes] warn slow {"id":7,"list":[1,2]}'],
    });
  });

  it('a refused fetch names the host and the reason; another add-on is tagged', () => {
    const refused = {
      level: 40,
      addon: 'other',
      version: '1.0.0',
      code: 'ADDON_OUTBOUND_REFUSED',
      reason: 'host_not_listed',
      host: 'api.example.com',
      msg: "outbound fetch to api.example.com refused: host not in the add-on's allow-list (outbound in addon.json)",
    };
    expect(formatLogEntry(refused, 'my-notes')?.lines).toEqual([
      `[other (another add-on)] warn outbound fetch to api.example.com refused: host not in the add-on's allow-list (outbound in addon.json) {"code":"ADDON_OUTBOUND_REFUSED","reason":"host_not_listed","host":"api.example.com"}`,
    ]);
  });

  it("the instance's own: info is left out, a warning or error shows its error's message", () => {
    expect(formatLogEntry({ level: 30, msg: 'request completed' }, 'my-notes')).toBeNull();
    expect(formatLogEntry({ level: 50, msg: 'public request failed', err: { message: 'boom', stack: 'Error: boom' } }, 'my-notes')).toEqual({
      error: true,
      lines: ['[instance] error public request failed: boom'],
    });
  });
});
