import { SourceMapConsumer } from 'source-map-js';

/** Where an add-on's failure points in the author's code: the first frame of its server.js, mapped. */
export interface SourceLine {
  file: string;
  line: number;
  column: number;
  /** The line of source as written (from the map's sourcesContent, or server.js itself without a map), at most 500 characters. */
  text: string;
}

/** A frame of the add-on's module as the sandbox names it (`addon:<key>@<version>/server.js:<line>:<column>`). */
const FRAME = /addon:[^\s()]*?\/server\.js:(\d+):(\d+)/g;
/**
 * What the API process parses of a map (decisions AO35). Parsing the `mappings` costs it the
 * time and memory: 8 MiB took 2.3 s of its thread and 150 MiB of heap (source-map-js; trace-mapping
 * measured the same), 1 MiB about a ninth of that, once per add-on version. A larger map is not
 * read: the frames keep server.js's positions. The whole map (sources included) is bounded too.
 */
export const MAX_MAPPINGS_CHARS = 1024 * 1024;
const MAX_MAP_CHARS = 16 * 1024 * 1024;
const MAX_TEXT = 500;

const lineOf = (text: string | null | undefined, line: number): string | null => {
  if (typeof text !== 'string') return null;
  const lines = text.split(/\r?\n/);
  const found = lines[line - 1];
  return found === undefined ? null : found.trimEnd().slice(0, MAX_TEXT);
};

/** The consumer of a package's server.js.map, or null when there is none or it is not a usable v3 map. */
export function readSourceMap(json: string | null): SourceMapConsumer | null {
  if (json === null || json.length > MAX_MAP_CHARS) return null;
  try {
    const raw = JSON.parse(json) as { version?: unknown; mappings?: unknown };
    if (raw.version !== 3 || typeof raw.mappings !== 'string' || raw.mappings.length > MAX_MAPPINGS_CHARS) return null;
    return new SourceMapConsumer(raw as ConstructorParameters<typeof SourceMapConsumer>[0]);
  } catch {
    return null;
  }
}

/**
 * The stack with every frame of server.js mapped to the author's file, line and column through
 * the package's source map (frames the map does not cover keep server.js's position), and the
 * first such frame's line of source. Without a map the positions are server.js's own, and the
 * line is read from `code`.
 */
export function mapStack(stack: string, map: SourceMapConsumer | null, code: string | null): { stack: string; source: SourceLine | null } {
  let source: SourceLine | null = null;
  const mapped = stack.replace(FRAME, (frame, l: string, c: string) => {
    const line = Number(l);
    const column = Number(c);
    const original = map?.originalPositionFor({ line, column: column - 1 });
    if (original?.source && original.line !== null && original.line !== undefined) {
      const at = { file: original.source, line: original.line, column: (original.column ?? 0) + 1 };
      source ??= { ...at, text: lineOf(map!.sourceContentFor(original.source, true), at.line) ?? '' };
      return `${at.file}:${at.line}:${at.column}`;
    }
    source ??= { file: 'server.js', line, column, text: lineOf(code, line) ?? '' };
    return frame;
  });
  // The instance's own frames say nothing to the author: the bootstrap that called the handler,
  // and past isolated-vm's boundary (a throw at the module's top level) the sandbox host's.
  const lines = mapped.split('\n');
  const boundary = lines.findIndex((l) => /^\s+at \(<isolated-vm boundary>\)$/.test(l));
  const own = (boundary === -1 ? lines : lines.slice(0, boundary)).filter((l) => !/^\s+at .*svc:bootstrap\.js:\d+:\d+\)?$/.test(l)).join('\n');
  return { stack: own, source };
}
