import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packAddon } from '../../addons-sdk/src/cli/pack.js';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../test/helpers/client.js';

/** Writes an add-on folder (addon.json, server.ts, other files) and packs it with the SDK, as an author would. */
export async function packFixture(
  manifest: AddonManifestInput,
  server: string | null,
  files: Record<string, string> = {},
): Promise<{ file: string; bytes: Buffer; sha256: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'addon-src-'));
  writeFileSync(join(dir, 'addon.json'), JSON.stringify(manifest, null, 2));
  if (server !== null) writeFileSync(join(dir, 'server.ts'), server);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const packed = await packAddon(dir, join(dir, 'out', `${manifest.key}-${manifest.version}.tgz`));
  return { file: packed.file, bytes: readFileSync(packed.file), sha256: packed.sha256 };
}

/** POST /add-ons/upload with the package as the one file part. */
export async function uploadPackage(baseUrl: string, client: HttpClient, bytes: Uint8Array, name = 'package.tgz') {
  const form = new FormData();
  form.append('file', new Blob([bytes as BlobPart], { type: 'application/gzip' }), name);
  const res = await fetch(`${baseUrl}/api/v1/add-ons/upload`, {
    method: 'POST',
    body: form,
    headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: baseUrl },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The tables of a SQLite file whose names start with `prefix` (an add-on's, `<key>__…`), in name order. */
export function sqliteTablesLike(file: string, prefix: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("select name from sqlite_master where type = 'table' and name like ? order by name").all(`${prefix}%`) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  } finally {
    db.close();
  }
}
