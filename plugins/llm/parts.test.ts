import { describe, expect, it } from 'vitest';
import { parseAnswer } from './changes.js';
import { checkedAddresses, classifyAddress, parseBaseUrl } from './outbound.js';

describe('the LLM outbound policy (decisions LL2)', () => {
  it('tells local, public and refused addresses apart', () => {
    for (const a of ['127.0.0.1', '127.8.9.1', '::1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '100.64.0.1', 'fd12::1', '::ffff:10.1.1.1'])
      expect(classifyAddress(a), a).toBe('local');
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.4.4']) expect(classifyAddress(a), a).toBe('public');
    for (const a of [
      '169.254.169.254',
      '169.254.1.1',
      '::ffff:169.254.169.254',
      'fe80::1',
      'fd00:ec2::254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '::',
      'not-an-ip',
    ])
      expect(classifyAddress(a), a).toBe('refused');
  });

  it('refuses credentials, other schemes and metadata names in the URL', () => {
    expect(() => parseBaseUrl('http://user:pw@127.0.0.1/v1')).toThrow();
    expect(() => parseBaseUrl('file:///etc/passwd')).toThrow();
    expect(() => parseBaseUrl('http://metadata.google.internal/')).toThrow();
    expect(() => parseBaseUrl('http://127.0.0.1/v1?x=1')).toThrow();
    expect(parseBaseUrl('http://[::1]:8080/v1').host).toBe('::1');
  });

  it('checks every address a name resolves to', async () => {
    const resolve = async () => [
      { address: '10.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ];
    await expect(checkedAddresses('model.internal', true, resolve)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const mixed = async () => [
      { address: '10.0.0.1', family: 4 },
      { address: '8.8.8.8', family: 4 },
    ];
    await expect(checkedAddresses('model.example', false, mixed)).rejects.toMatchObject({ code: 'NETWORK_FEATURES_DISABLED' });
    expect(await checkedAddresses('model.example', true, mixed)).toHaveLength(2);
    // A name that does not resolve counts as public.
    const none = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(checkedAddresses('nowhere.example', false, none)).rejects.toMatchObject({ code: 'NETWORK_FEATURES_DISABLED' });
    expect(await checkedAddresses('nowhere.example', true, none)).toBeNull();
  });
});

describe('finding the change set in an answer (decisions LL4)', () => {
  const tables = ['product'];
  it('takes bare JSON, a fenced block among prose, or the bare array', () => {
    const set = { changes: [{ op: 'delete', table: 'product', key: { id: 1 } }] };
    expect(parseAnswer(JSON.stringify(set), tables, 10)).toMatchObject({ ok: true, changes: set.changes });
    expect(parseAnswer(`Sure.\n\n\`\`\`json\n${JSON.stringify(set)}\n\`\`\`\nDone.`, tables, 10)).toMatchObject({ ok: true });
    expect(parseAnswer(`Here: ${JSON.stringify(set.changes)}`, tables, 10)).toMatchObject({ ok: true });
  });

  it('says why it cannot use an answer', () => {
    expect(parseAnswer('No idea.', tables, 10)).toEqual({ ok: false, problems: [expect.stringMatching(/prose/)] });
    expect(parseAnswer('```json\n{"changes": [\n```', tables, 10)).toEqual({ ok: false, problems: [expect.stringMatching(/not valid/)] });
    expect(parseAnswer('{"rows": []}', tables, 10)).toEqual({ ok: false, problems: [expect.stringMatching(/not a change set/)] });
    const ddl = parseAnswer(
      JSON.stringify({
        changes: [
          { op: 'create-table', table: 'x' },
          { op: 'update', table: 'product', values: {} },
        ],
      }),
      tables,
      10,
    );
    expect(ddl.ok).toBe(false);
    if (!ddl.ok) {
      expect(ddl.problems[0]).toMatch(/unknown operation "create-table"/);
      expect(ddl.problems[1]).toMatch(/changes\.1: key/);
    }
    const many = parseAnswer(JSON.stringify({ changes: [1, 2, 3].map((id) => ({ op: 'delete', table: 'product', key: { id } })) }), tables, 2);
    expect(many).toEqual({ ok: false, problems: ['3 changes: at most 2 in one run.'] });
  });
});
