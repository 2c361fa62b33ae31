import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_KEY } from '../manifest/addon.js';
import { SDK_PACKAGE } from '../sdk-name.js';

/** A key from a folder name: `My Notes` → `my-notes`; null when nothing usable is left. */
export function keyFromName(name: string): string | null {
  const key = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return key.length >= 2 && ADDON_KEY.test(key) ? key : null;
}

const title = (key: string): string =>
  key
    .split('-')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

async function sdkVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
  return pkg.version;
}

/** The SDK's surface helper (svc-app.js), which init copies into the page's folder. */
export const SURFACE_HELPER_FILE = fileURLToPath(new URL('../../surface/svc-app.js', import.meta.url));
export const SURFACE_HELPER_NAME = 'svc-app.js';

/**
 * The files of a new add-on: a notes table, a public endpoint over it, actions, a hook, a
 * dashboard page whose script and style are files of their own (the surface CSP refuses inline
 * ones) and a unit test of the server code with the SDK's ctx double.
 */
export async function skeleton(key: string): Promise<Record<string, string>> {
  const name = title(key);
  const manifest = {
    key,
    name,
    version: '0.1.0',
    engine: '>=0.1.0 <1',
    description: `${name}: notes kept by the instance.`,
    author: '',
    capabilities: ['db'],
    tables: [
      {
        name: 'notes',
        columns: [
          { name: 'id', type: 'integer', nullable: false, autoIncrement: true },
          { name: 'title', type: 'string', nullable: false, maxLength: 200 },
          { name: 'body', type: 'text' },
          { name: 'created_at', type: 'datetime', nullable: false, default: 'now()' },
        ],
        primaryKey: ['id'],
        indexes: [{ columns: ['created_at'] }],
      },
    ],
    endpoints: [
      {
        ref: 'notes',
        table: 'notes',
        methods: ['GET', 'POST'],
        columns: ['id', 'title', 'body', 'created_at'],
        writable: ['title', 'body'],
        filterable: ['title'],
        orderable: ['created_at', 'id'],
      },
    ],
    surfaces: [{ name: 'page', kind: 'dashboard-page', entry: 'index.html', title: name }],
    hooks: ['notes.beforeWrite'],
    actions: ['recent', 'add', 'count'],
  };
  const server = `import { defineAddon, type AddonContext, type BeforeWriteEvent, type Json } from '${SDK_PACKAGE}';

/**
 * Runs in the instance's sandbox: no Node API, only \`ctx\` (what addon.json's capabilities
 * grant). Each hook and action here is declared in addon.json.
 */

/** A title as the notes table takes it: trimmed, 1 to 200 characters; null when there is none. */
export function cleanTitle(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const title = value.trim();
  return title ? title.slice(0, 200) : null;
}

export default defineAddon({
  hooks: {
    /** Before every write to notes through the public endpoint: trim the title, refuse an empty one. */
    'notes.beforeWrite': async (_ctx: AddonContext, event: BeforeWriteEvent) => {
      if (event.op === 'delete') return undefined;
      if (event.op === 'update' && !('title' in event.values)) return undefined;
      const title = cleanTitle(event.values['title']);
      if (!title) return { refuse: 'A note needs a title.' };
      return { values: { ...event.values, title } };
    },
  },
  actions: {
    /** The newest notes first, at most 50 (the page calls this through the dashboard). */
    recent: async (ctx: AddonContext) => {
      const page = await ctx.db.list('notes', { sort: ['-created_at', '-id'], limit: 50 });
      return page.rows;
    },
    /** Adds a note: input \`{ title, body? }\`; a missing title is refused with 400 NOTE_TITLE_MISSING. */
    add: async (ctx: AddonContext, input: Json) => {
      const values = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
      const title = cleanTitle(values['title']);
      if (!title) ctx.refuse(400, 'NOTE_TITLE_MISSING', 'A note needs a title.');
      const row = await ctx.db.insert('notes', { title, body: typeof values['body'] === 'string' ? values['body'] : null });
      ctx.log.info('note added', { id: row['id'] ?? null });
      return row;
    },
    /** POST /public/apps/${key}/actions/count: how many notes there are (up to 500). */
    count: async (ctx: AddonContext) => {
      const page = await ctx.db.list('notes', { limit: 500 });
      return { notes: page.rows.length };
    },
  },
});
`;
  const serverTest = `import { describe, expect, it } from 'vitest';
import { createTestContext } from '${SDK_PACKAGE}/testing';
import manifest from './addon.json' with { type: 'json' };
import addon from './server.ts';

describe('${key}', () => {
  it('adds a note and lists it first', async () => {
    const ctx = createTestContext({ manifest });
    const row = await addon.actions.add(ctx, { title: '  Buy milk ' });
    expect(row).toMatchObject({ title: 'Buy milk' });
    expect(await addon.actions.recent(ctx)).toEqual([row]);
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'info', message: 'note added' }));
  });

  it('refuses a note without a title', async () => {
    const ctx = createTestContext({ manifest });
    await expect(addon.actions.add(ctx, { title: ' ' })).rejects.toMatchObject({ status: 400, code: 'NOTE_TITLE_MISSING' });
    expect(ctx.store.rows('notes')).toEqual([]);
  });
});
`;
  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${name}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="page.css" />
    <script type="module" src="page.js"></script>
  </head>
  <body>
    <main>
      <h1>${name}</h1>
      <form id="add" novalidate>
        <label for="title">New note</label>
        <input id="title" name="title" maxlength="200" autocomplete="off" />
        <button type="submit">Add</button>
      </form>
      <p id="status" role="status" aria-live="polite"></p>
      <ul id="notes" aria-label="Notes"></ul>
    </main>
  </body>
</html>
`;
  const pageJs = `// The page's script: a file of its own, as the instance's surface CSP allows no inline script.
// svc-app.js is the SDK's surface helper: framed in the dashboard it calls the add-on's actions
// through the dashboard (the frame has no session of its own); on a domain of its own it calls
// the public API with the app key.
import { connect } from './svc-app.js';

const app = connect({ key: '${key}' });
const $ = (id) => document.getElementById(id);

function show(notes) {
  $('notes').replaceChildren(
    ...notes.map((note) => {
      const li = document.createElement('li');
      li.textContent = note.title;
      return li;
    }),
  );
}

async function load() {
  try {
    const notes = await app.action('recent');
    show(notes);
    $('status').textContent = notes.length ? '' : 'No notes yet.';
  } catch (error) {
    $('status').textContent = \`Could not load the notes: \${error.message}\`;
  }
}

$('add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('title');
  const button = event.currentTarget.querySelector('button');
  button.disabled = true;
  try {
    await app.action('add', { title: input.value });
    input.value = '';
    $('status').textContent = 'Added.';
    await load();
  } catch (error) {
    $('status').textContent = error.message;
  } finally {
    button.disabled = false;
    input.focus();
  }
});

load();
`;
  const pageCss = `body {
  font: 15px/1.5 system-ui, sans-serif;
  margin: 2rem;
  color: #1d1d1f;
}
form {
  display: flex;
  gap: 0.5rem;
  align-items: center;
}
li {
  margin: 0.25rem 0;
}
`;
  const readme = `# ${name}

An add-on for svc-admin.

- \`addon.json\`: what it declares (tables, endpoints, surfaces, hooks, actions, capabilities).
- \`server.ts\`: its hooks and actions; they run in the instance's sandbox. \`server.test.ts\` tests them without an instance.
- \`surfaces/page/\`: the dashboard page (\`index.html\`, \`page.js\`, \`page.css\`, and \`svc-app.js\`, the SDK's surface helper).

\`\`\`sh
npm install         # the SDK (${SDK_PACKAGE}) and vitest
npm run check       # the manifest, the package rules, the hooks and actions, what the page's CSP refuses
npm test            # server.test.ts
npm run dev         # a local instance with this add-on installed, reinstalled on change (data in .svc-dev/, disposable)
npm run pack        # ${key}-0.1.0.tgz, to upload or publish in a catalog
\`\`\`
`;
  const pkg = {
    name: key,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: { check: 'svc-addon check', pack: 'svc-addon pack', dev: 'svc-addon dev', test: 'vitest run' },
    devDependencies: { [SDK_PACKAGE]: `^${await sdkVersion()}`, vitest: '^4.0.0' },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2022'],
      types: [],
      strict: true,
      noEmit: true,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      skipLibCheck: true,
    },
    include: ['server.ts', 'server.test.ts'],
  };
  return {
    'addon.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'server.ts': server,
    'server.test.ts': serverTest,
    'surfaces/page/index.html': page,
    'surfaces/page/page.js': pageJs,
    'surfaces/page/page.css': pageCss,
    [`surfaces/page/${SURFACE_HELPER_NAME}`]: await readFile(SURFACE_HELPER_FILE, 'utf8'),
    'README.md': readme,
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    '.gitignore': 'node_modules/\n*.tgz\n.svc-dev/\n',
  };
}

export class InitRefused extends Error {
  override readonly name = 'InitRefused';
}

/** Writes a new add-on into `dir` (created when missing; refused when it holds anything). Returns the key and the files written. */
export async function initAddon(dir: string, key?: string): Promise<{ dir: string; key: string; files: string[] }> {
  const root = resolve(dir);
  const chosen = key ?? keyFromName(basename(root));
  if (!chosen) throw new InitRefused(`Cannot make an add-on key from the folder name ${JSON.stringify(basename(root))}; pass --key my-addon.`);
  if (chosen.length < 2 || chosen.length > 40 || !ADDON_KEY.test(chosen))
    throw new InitRefused(`${JSON.stringify(chosen)} is not an add-on key: kebab-case, 2 to 40 characters, starting with a letter (e.g. my-addon).`);
  let existing: string[] = [];
  try {
    existing = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing.length) throw new InitRefused(`${root} is not empty; init writes into a new or empty folder.`);
  const files = await skeleton(chosen);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content, { flag: 'wx' });
  }
  return { dir: root, key: chosen, files: Object.keys(files) };
}
