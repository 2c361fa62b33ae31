import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';

/** A raw POST over HTTP: the content type is sent exactly as given (fetch would fix it up). */
function rawPost(url: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('multipart uploads without a usable boundary', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
  });
  afterAll(async () => {
    await inst?.close();
  });

  const form = (boundary: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\na,b\r\n1,2\r\n--${boundary}--\r\n`;

  it.each([
    ['no boundary', 'multipart/form-data'],
    ['an empty boundary', 'multipart/form-data; boundary='],
    ['an empty quoted boundary', 'multipart/form-data; boundary=""'],
    ['a boundary of 71 characters', `multipart/form-data; boundary=${'b'.repeat(71)}`],
    ['a boundary parameter without a value', 'multipart/form-data; boundary'],
    ['a broken parameter list', 'multipart/form-data; ;;=; boundary'],
  ])('%s answers 400 MULTIPART_MALFORMED', async (_name, contentType) => {
    const res = await rawPost(
      inst.url,
      '/api/v1/imports/upload',
      { 'content-type': contentType, cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url },
      form('xyz'),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('MULTIPART_MALFORMED');
    expect(typeof res.body.error.message).toBe('string');
  });

  it.each([
    ['a boundary that the body does not use', 'abc', form('xyz')],
    ['a file part cut short', 'xyz', form('xyz').slice(0, -12)],
    ['a part header that never ends', 'abc', '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n'],
  ])('%s answers 400 MULTIPART_MALFORMED too', async (_name, boundary, body) => {
    const res = await rawPost(
      inst.url,
      '/api/v1/imports/upload',
      { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url },
      body,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('MULTIPART_MALFORMED');
  });

  it('an unauthenticated request without a boundary is refused as unauthenticated first', async () => {
    const res = await rawPost(inst.url, '/api/v1/imports/upload', { 'content-type': 'multipart/form-data', origin: inst.url }, form('xyz'));
    expect(res.status).toBe(401);
  });

  it('a well-formed form still uploads', async () => {
    const res = await rawPost(
      inst.url,
      '/api/v1/imports/upload',
      { 'content-type': 'multipart/form-data; boundary=xyz', cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url },
      form('xyz'),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.upload.rowCount).toBe(1);
  });
});
