import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger, type Logger } from './logger.js';

function capture(level: string): { log: Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      out.push(String(chunk));
      done();
    },
  });
  const log = pino({ level, base: { app: 'svc' } }, stream) as unknown as Logger;
  return {
    log,
    lines: () =>
      out
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('requestLogger (decisions K39)', () => {
  it('above info, writes nothing until a line is written, then writes it with the request id, as pino’s child would', () => {
    const { log, lines } = capture('warn');
    const req = requestLogger(log, { reqId: 'abc-1' }, {});
    req.info({ code: 'X' }, 'not written at warn');
    req.debug('nor this');
    expect(lines()).toEqual([]);
    req.warn({ code: 'SLOW' }, 'first');
    req.error(new Error('boom'), 'second');
    const written = lines();
    expect(written.map((l) => [l['msg'], l['reqId'], l['app']])).toEqual([
      ['first', 'abc-1', 'svc'],
      ['second', 'abc-1', 'svc'],
    ]);
    expect(written[0]!['code']).toBe('SLOW');
    expect((written[1]!['err'] as { message: string }).message).toBe('boom');
  });

  it('keeps requests apart, and a child of a request logger carries both bindings', () => {
    const { log, lines } = capture('warn');
    const a = requestLogger(log, { reqId: 'a' }, {});
    const b = requestLogger(log, { reqId: 'b' }, {});
    b.warn('from b');
    a.warn('from a');
    a.child({ job: 'j1' }).error('from a child');
    expect(lines().map((l) => [l['msg'], l['reqId'], l['job']])).toEqual([
      ['from b', 'b', undefined],
      ['from a', 'a', undefined],
      ['from a child', 'a', 'j1'],
    ]);
    expect((a as unknown as { bindings(): object }).bindings()).toEqual({ app: 'svc', reqId: 'a' });
  });

  it('at info and finer, and with a level of its own, is pino’s child from the start', () => {
    const { log, lines } = capture('info');
    const req = requestLogger(log, { reqId: 'i-1' }, {});
    req.info('written');
    expect(lines().map((l) => [l['msg'], l['reqId']])).toEqual([['written', 'i-1']]);
    const quiet = capture('warn');
    const own = requestLogger(quiet.log, { reqId: 'd-1' }, { level: 'debug' });
    own.debug('route level');
    expect(quiet.lines().map((l) => [l['msg'], l['reqId']])).toEqual([['route level', 'd-1']]);
  });

  it('follows a change of the server’s level', () => {
    const { log, lines } = capture('error');
    requestLogger(log, { reqId: 'e-1' }, {}).warn('not at error');
    (log as unknown as { level: string }).level = 'warn';
    requestLogger(log, { reqId: 'w-1' }, {}).warn('now written');
    expect(lines().map((l) => [l['msg'], l['reqId']])).toEqual([['now written', 'w-1']]);
  });
});

describe('requestLogger with a server that does not log', () => {
  it('hands back what fastify’s levelless logger makes', () => {
    const silent = { child: () => silent, info() {}, warn() {}, error() {}, fatal() {}, debug() {}, trace() {}, level: 'silent' } as unknown as Logger;
    expect(requestLogger(silent, { reqId: 'x' }, {})).toBe(silent);
  });
});
