import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDON_KEY } from '../manifest/addon.js';

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

/** The files of a new add-on: a notes table, a public endpoint over it, an action, a hook and a dashboard page. */
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
    actions: ['count'],
  };
  const server = `import { defineAddon, type AddonContext, type BeforeWriteEvent } from '@svc/addons-sdk';

/**
 * Runs in the instance's sandbox: no Node API, only \`ctx\` (what addon.json's capabilities
 * grant). Each hook and action here is declared in addon.json.
 */
export default defineAddon({
  hooks: {
    /** Before every write to notes: trim the title, refuse an empty one. */
    'notes.beforeWrite': async (_ctx: AddonContext, event: BeforeWriteEvent) => {
      if (event.op === 'delete') return undefined;
      const title = event.values['title'];
      if (typeof title === 'string') {
        if (!title.trim()) return { refuse: 'A note needs a title.' };
        return { values: { ...event.values, title: title.trim() } };
      }
      if (event.op === 'insert') return { refuse: 'A note needs a title.' };
      return undefined;
    },
  },
  actions: {
    /** POST /public/apps/${key}/actions/count: how many notes there are (up to 500). */
    count: async (ctx: AddonContext) => {
      const page = await ctx.db.list('notes', { limit: 500 });
      return { notes: page.rows.length };
    },
  },
});
`;
  const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${name}</title>
  <style>body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem; } li { margin: .25rem 0; }</style>
</head>
<body>
  <h1>${name}</h1>
  <form id="add"><input name="title" placeholder="A new note" required> <button>Add</button></form>
  <ul id="notes"></ul>
  <script type="module">
    // The instance injects <meta name="svc-app"> (the app key and the public API base) when it serves this page.
    const meta = document.querySelector('meta[name="svc-app"]');
    const app = meta ? JSON.parse(meta.content) : { appKey: '', apiBase: '/public' };
    const headers = { authorization: \`Bearer \${app.appKey}\`, 'content-type': 'application/json' };
    const url = \`\${app.apiBase}/records/${key}-notes\`;
    async function load() {
      const res = await fetch(url + '?limit=50', { headers });
      const body = await res.json();
      const rows = Array.isArray(body) ? body : body.data ?? [];
      document.getElementById('notes').replaceChildren(...rows.map((r) => Object.assign(document.createElement('li'), { textContent: r.title })));
    }
    document.getElementById('add').addEventListener('submit', async (e) => {
      e.preventDefault();
      await fetch(url, { method: 'POST', headers, body: JSON.stringify({ values: { title: e.target.title.value } }) });
      e.target.reset();
      load();
    });
    load();
  </script>
</body>
</html>
`;
  const readme = `# ${name}

An add-on for svc-admin.

- \`addon.json\`: what it declares (tables, endpoints, surfaces, hooks, actions, capabilities).
- \`server.ts\`: its hooks and actions; they run in the instance's sandbox.
- \`surfaces/page/\`: the dashboard page.

\`\`\`sh
npx svc-addon check   # the manifest, the package rules, the hooks and actions
npx svc-addon dev     # a local instance with this add-on installed, reinstalled on change (data in .svc-dev/, disposable)
npx svc-addon pack    # ${key}-0.1.0.tgz, to upload or publish in a catalog
\`\`\`
`;
  const pkg = {
    name: key,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: { check: 'svc-addon check', pack: 'svc-addon pack' },
    devDependencies: { '@svc/addons-sdk': `^${await sdkVersion()}` },
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
      skipLibCheck: true,
    },
    include: ['server.ts'],
  };
  return {
    'addon.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'server.ts': server,
    'surfaces/page/index.html': page,
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
