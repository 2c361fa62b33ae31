import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { SecretBox } from '../crypto.js';
import type { Logger } from '../logger.js';
import type { SettingsStore } from '../settings.js';
import { MAIL_ATTACHMENTS_MAX_BYTES, Mailer } from './mailer.js';

/** K49: the kernel mailer sends attachments, at most 10 MiB together. */
describe('the mailer with attachments', () => {
  const smtp = new TestSmtpServer();
  let mailer: Mailer;
  beforeAll(async () => {
    await smtp.start();
    const stored = { host: '127.0.0.1', port: smtp.port, security: 'none', user: null, passwordSealed: null, from: 'svc@example.test', replyTo: null };
    const settings = { get: async () => stored } as unknown as SettingsStore;
    mailer = new Mailer(settings, new SecretBox('x'.repeat(40), 'smtp'), { warn: () => undefined } as unknown as Logger);
  });
  afterAll(() => smtp.stop());

  it('sends a Buffer and a stream as attachments', async () => {
    const res = await mailer.send({
      to: 'a@example.test',
      subject: 'files',
      text: 'two files',
      attachments: [
        { filename: 'a.csv', contentType: 'text/csv', content: Buffer.from('id,name\n1,x\n') },
        { filename: 'b.jsonl', content: Readable.from([Buffer.from('{"id":1}\n')]), size: 9 },
      ],
    });
    expect(res.sent).toBe(true);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.raw).toContain('filename=a.csv');
    expect(mail!.raw).toContain('filename=b.jsonl');
    expect(mail!.raw).toContain(Buffer.from('id,name\n1,x\n').toString('base64'));
  });

  it('refuses attachments above 10 MiB together before connecting', async () => {
    const before = smtp.received.length;
    const res = await mailer.send({
      to: 'a@example.test',
      subject: 'too big',
      text: 'x',
      attachments: [
        { filename: 'a.bin', content: Buffer.alloc(MAIL_ATTACHMENTS_MAX_BYTES / 2) },
        { filename: 'b.bin', content: Readable.from([]), size: MAIL_ATTACHMENTS_MAX_BYTES / 2 + 1 },
      ],
    });
    expect(res).toEqual({ sent: false, reason: 'too-large' });
    expect(smtp.received.length).toBe(before);
  });
});
