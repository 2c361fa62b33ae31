import { describe, expect, it } from 'vitest';
import { MAX_INPUT_BYTES, readMessage } from '../dashboard/src/areas/add-ons/bridge-message.js';

describe("the dashboard's action bridge reads only its own message shape", () => {
  it('takes {type, id, name, input}, the input re-read as plain JSON', () => {
    expect(readMessage({ type: 'svc-action', id: 'a1', name: 'echo', input: { n: 1, at: new Date(0) } })).toEqual({
      kind: 'call',
      id: 'a1',
      name: 'echo',
      input: { n: 1, at: '1970-01-01T00:00:00.000Z' },
    });
    expect(readMessage({ type: 'svc-action', id: 7, name: 'make-booking' })).toEqual({ kind: 'call', id: 7, name: 'make-booking', input: null });
  });

  it('ignores anything else', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const data of [
      null,
      'svc-action',
      [],
      { type: 'svc-action-result', id: 'a', name: 'echo' },
      { type: 'svc-action', id: 'a', name: 'echo', extra: 1 },
      { type: 'svc-action', id: '', name: 'echo' },
      { type: 'svc-action', id: 'x'.repeat(201), name: 'echo' },
      { type: 'svc-action', id: Number.NaN, name: 'echo' },
      { type: 'svc-action', id: { a: 1 }, name: 'echo' },
      { type: 'svc-action', id: 'a', name: '../users' },
      { type: 'svc-action', id: 'a', name: 'Echo' },
      { type: 'svc-action', id: 'a', name: 'echo', input: 1n },
      { type: 'svc-action', id: 'a', name: 'echo', input: cyclic },
    ])
      expect(
        readMessage(data),
        JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? 'bigint' : v === cyclic ? 'cyclic' : v)),
      ).toBeNull();
  });

  it('answers an input over the limit (in UTF-8 bytes) instead of sending it', () => {
    const big = 'é'.repeat(MAX_INPUT_BYTES / 2); // twice as many bytes as characters
    expect(readMessage({ type: 'svc-action', id: 'a', name: 'echo', input: big })).toMatchObject({ kind: 'refuse', id: 'a', code: 'BRIDGE_INPUT_TOO_LARGE' });
    expect(readMessage({ type: 'svc-action', id: 'a', name: 'echo', input: 'x'.repeat(MAX_INPUT_BYTES - 10) })).toMatchObject({ kind: 'call' });
  });
});
