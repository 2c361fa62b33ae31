/** ZIP files built byte by byte for the XLSX limit tests: honest ones, bombs, and ones whose directory lies. */
import { constants, crc32, deflateRawSync } from 'node:zlib';

export interface FixtureEntry {
  name: string;
  /** The content, deflated here; or `deflated` with `size`, for content too large to hold. */
  data?: string | Buffer;
  deflated?: Buffer;
  size?: number;
  /** What the directory (and local header) claim instead of the real size. */
  declaredSize?: number;
  /** In the file but left out of the central directory (what a reader of local headers alone still finds). */
  hidden?: boolean;
}

/**
 * `unit` repeated `times`, deflated without ever holding the whole: one fully flushed deflate
 * segment (byte-aligned, no shared history) repeated, then a final empty block.
 */
export function repeatedDeflate(unit: string, times: number): { deflated: Buffer; size: number } {
  const segment = deflateRawSync(Buffer.from(unit), { finishFlush: constants.Z_FULL_FLUSH });
  const finalBlock = Buffer.from([0x03, 0x00]);
  return { deflated: Buffer.concat([...Array.from({ length: times }, () => segment), finalBlock]), size: Buffer.byteLength(unit) * times };
}

export function zipOf(entries: FixtureEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = e.data === undefined ? null : Buffer.from(e.data);
    const deflated = raw ? deflateRawSync(raw) : e.deflated!;
    const size = e.declaredSize ?? (raw ? raw.length : e.size!);
    const crc = raw ? crc32(raw) : 0;
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(deflated.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(deflated.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, deflated);
    if (!e.hidden) centrals.push(central, name);
    offset += 30 + name.length + deflated.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const listed = entries.filter((e) => !e.hidden).length;
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** The parts of a minimal workbook with one sheet, to combine with a sheet and shared strings of one's own. */
export const WORKBOOK_PARTS: FixtureEntry[] = [
  {
    name: '[Content_Types].xml',
    data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
  },
  {
    name: 'xl/_rels/workbook.xml.rels',
    data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  },
  {
    name: 'xl/workbook.xml',
    data: `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS} ${REL_NS}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  },
];

export const sheetXml = (rows: string) => `<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`;
export const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}><sheetData>`;
export const SHEET_TAIL = '</sheetData></worksheet>';
export const sharedStringsXml = (strings: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sst ${NS} count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;
