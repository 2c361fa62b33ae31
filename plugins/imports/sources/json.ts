import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { ReadOptions, SourceRecord } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `array` for a JSON array of objects, `lines` for JSON lines (one object per line). */
export async function jsonShape(path: string): Promise<'array' | 'lines' | null> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const first = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart()[0];
    return first === '[' ? 'array' : first === '{' ? 'lines' : null;
  } finally {
    await fh.close();
  }
}

/**
 * A JSON array is read element by element (stream-json), so its size does not matter; `line`
 * is the element's position (1-based). A syntax error ends the array: the rest is refused as
 * one record. JSON lines are read line by line, and a bad line is refused alone.
 */
export async function* readJson(path: string, opts: ReadOptions): AsyncGenerator<SourceRecord> {
  const shape = await jsonShape(path);
  if (shape === 'lines') {
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    let n = 0;
    try {
      for await (const text of lines) {
        n++;
        opts.signal?.throwIfAborted();
        const t = n === 1 ? text.replace(/^\uFEFF/, '') : text;
        if (!t.trim()) continue;
        let value: unknown;
        try {
          value = JSON.parse(t);
        } catch (err) {
          yield { line: n, error: `malformed JSON: ${(err as Error).message}`, raw: [t] };
          continue;
        }
        if (isRecord(value)) yield { line: n, values: value };
        else yield { line: n, error: 'not a JSON object', raw: [t] };
      }
    } finally {
      lines.close();
    }
    return;
  }
  const { default: StreamArray } = await import('stream-json/streamers/StreamArray.js');
  const stream = createReadStream(path).pipe(StreamArray.withParser());
  let n = 0;
  try {
    for await (const item of stream as AsyncIterable<{ key: number; value: unknown }>) {
      opts.signal?.throwIfAborted();
      n = item.key + 1;
      if (isRecord(item.value)) yield { line: n, values: item.value };
      else yield { line: n, error: 'not a JSON object', raw: [JSON.stringify(item.value)] };
    }
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    yield { line: n + 1, error: `malformed JSON: ${(err as Error).message}; the rest of the file was not read`, raw: null };
  } finally {
    stream.destroy();
  }
}
