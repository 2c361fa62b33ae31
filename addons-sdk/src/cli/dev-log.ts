/**
 * How `svc-addon dev` prints the instance's log lines (JSON, one per line) for the author: the
 * add-on's own `ctx.log` lines with their level, message and fields; a failure of its code with
 * the message, the stack mapped to the author's files and the source line with a caret (the
 * instance logs `{addon, version, err: {message, stack}, source: {file, line, column, text}}`,
 * decisions AO35); other warnings and errors of the instance with their error's message.
 */

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** Keys of a line that are the logger's or the instance's, not the add-on's fields. */
const OWN_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'addon', 'version', 'reqId', 'v', 'err', 'source', 'call']);

export interface LogEntry {
  level?: number;
  msg?: string;
  addon?: string;
  version?: string;
  err?: { message?: string; stack?: string; type?: string; code?: string };
  source?: { file?: string; line?: number; column?: number; text?: string };
  call?: { kind?: string; name?: string };
  [field: string]: unknown;
}

const levelName = (level: number | undefined): string => LEVELS[level ?? 30] ?? String(level);

/** The source line with its number and a caret under the column: `  12 | throw new Error('x');` / `     |       ^`. */
export function sourceExcerpt(source: NonNullable<LogEntry['source']>): string[] {
  if (typeof source.line !== 'number' || typeof source.text !== 'string') return [];
  const number = String(source.line);
  const lines = [`  ${number} | ${source.text}`];
  if (typeof source.column === 'number' && source.column >= 1) {
    // Tabs keep their width under the caret; every other character is one column.
    const pad = source.text.slice(0, source.column - 1).replace(/[^\t]/g, ' ');
    lines.push(`  ${' '.repeat(number.length)} | ${pad}^`);
  }
  return lines;
}

/** The stack without its first line (the message, printed already), frames indented. */
function frames(stack: string, message: string): string[] {
  const lines = stack.split('\n');
  const first = lines[0] ?? '';
  const rest = first.includes(message) || !/^\s+at /.test(first) ? lines.slice(1) : lines;
  return rest.filter((l) => l.trim()).map((l) => `    ${l.trim()}`);
}

/**
 * The lines to print for one log entry, and whether they go to stderr; null: not for the author
 * (the instance's info lines). `addonKey`: the add-on dev installed (lines of other add-ons are
 * printed too, tagged with their key).
 */
export function formatLogEntry(entry: LogEntry, addonKey: string | null): { lines: string[]; error: boolean } | null {
  const level = entry.level ?? 30;
  const error = level >= 50;
  if (typeof entry.addon === 'string') {
    const tag = `[${entry.addon}${entry.addon === addonKey ? '' : ' (another add-on)'}]`;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(entry)) if (!OWN_KEYS.has(k)) fields[k] = v;
    const shown = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
    const call = entry.call?.name ? ` (${entry.call.kind ?? 'call'} ${entry.call.name})` : '';
    const lines = [`${tag} ${levelName(level)} ${entry.msg ?? ''}${call}${shown}`];
    if (entry.err && typeof entry.err === 'object') {
      const message = entry.err.message ?? '';
      if (message && !(entry.msg ?? '').includes(message)) lines.push(`  ${message}`);
      if (entry.source && typeof entry.source.file === 'string')
        lines.push(`  at ${entry.source.file}:${entry.source.line ?? '?'}:${entry.source.column ?? '?'}`, ...sourceExcerpt(entry.source));
      if (typeof entry.err.stack === 'string' && entry.err.stack) lines.push(...frames(entry.err.stack, message));
    }
    return { lines, error: level >= 40 };
  }
  if (level < 40) return null;
  const detail = entry.err?.message && !(entry.msg ?? '').includes(entry.err.message) ? `: ${entry.err.message}` : '';
  return { lines: [`[instance] ${levelName(level)} ${entry.msg ?? ''}${detail}`], error };
}
