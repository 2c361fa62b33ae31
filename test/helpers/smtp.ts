import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The decoded text part (quoted-printable soft breaks removed). */
  text: string;
}

/** A real SMTP server on loopback that keeps what it receives (tests read reset/invite mails). */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | null = null;
  port = 0;
  private waiters: Array<() => void> = [];
  /** Addresses refused once at RCPT TO (a transient 451), then accepted: a mail that fails for one recipient. */
  readonly refuseOnce = new Set<string>();

  async start(): Promise<number> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, cb) => cb(null, { user: auth.username }),
      onRcptTo: (address, _session, cb) => {
        if (!this.refuseOnce.delete(address.address.toLowerCase())) return cb();
        cb(Object.assign(new Error('Try again later'), { responseCode: 451 }));
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            subject: decodeHeader(/^Subject: (.*(?:\r\n[ \t].*)*)/im.exec(raw)?.[1] ?? ''),
            text: decodeBody(raw),
          });
          for (const w of this.waiters.splice(0)) w();
          cb();
        });
      },
    });
    await new Promise<void>((res) => this.server!.listen(0, '127.0.0.1', () => res()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Waits (bounded) until `count` mails arrived. */
  async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} mails, got ${this.received.length}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, left);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
    return this.received;
  }

  /** The settings body for PUT /settings/email pointing at this server. */
  settings(from = 'Admin <admin@example.test>') {
    return { smtp: { host: '127.0.0.1', port: this.port, security: 'none' as const, user: null, from } };
  }

  async stop(): Promise<void> {
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
  }
}

function decodeHeader(v: string): string {
  return v.replace(/\r\n[ \t]/g, ' ').replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, enc: string, data: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(
          data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function decodeBody(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  let body = raw.slice(split + 4);
  const textPart = /Content-Type: text\/plain[^]*?\r\n\r\n([^]*?)(\r\n--|$)/i.exec(raw);
  if (/multipart/i.test(headers) && textPart) body = textPart[1]!;
  if (/quoted-printable/i.test(raw))
    body = Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  else if (/Content-Transfer-Encoding: base64/i.test(raw)) body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}
