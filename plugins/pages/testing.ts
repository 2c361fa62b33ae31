/** Fixtures for the pages tests: an instance on a meta store with the shared schema fixture (SQLite) behind a connection. */
import { expect } from 'vitest';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import type { HttpClient } from '../../test/helpers/client.js';
import type { MetaChoice } from '../../test/helpers/instance.js';
import { dataEnv, type DataEnv } from '../data/testing.js';
import { roleWith } from '../exports/testing.js';
import { pagesRef, type PagesProvides } from './provides.js';

/** Pages a test marks in use, as a scheduled report would (PageDependent.inUse). */
export const pagesInUse = new Map<string, string[]>();

/** The pages plugin's face of the instance booted last (read by pagesEnv right after its boot). */
let lastPages: PagesProvides | null = null;

/** A plugin that keeps something about pages, as the reports plugin will. */
export const pageUserPlugin = definePlugin({
  name: 'page-user-test',
  version: '1.0.0',
  requires: ['pages'],
  setup: (kernel) => {
    lastPages = kernel.plugin(pagesRef);
    kernel.plugin(pagesRef).addDependent({ inUse: async (pageId) => (pagesInUse.has(pageId) ? { reports: pagesInUse.get(pageId)! } : null) });
    return {};
  },
});

export interface PagesEnv extends DataEnv {
  editor: HttpClient;
  viewer: HttpClient;
  /** pages.read, pages.write and data.read on product's id, name and price only. */
  narrow: HttpClient;
  /** PagesProvides of this instance, as another plugin sees it. */
  pages: PagesProvides;
  /** Creates a page as the editor, expecting 201. */
  page(body: object, client?: HttpClient): Promise<any>;
}

/** `user.api_token` is secret and `user.email` personal, as in the data plugin's access tests. */
export async function pagesEnv(meta: MetaChoice): Promise<PagesEnv> {
  const env = await dataEnv('sqlite', { meta, plugins: [pageUserPlugin] });
  const pages = lastPages!;
  const put = await env.req(env.admin, 'PUT', `/api/v1/connections/${env.connectionId}/schema/overrides`, {
    tables: [
      {
        table: 'user',
        columns: [
          { column: 'email', personal: true },
          { column: 'api_token', secret: true },
        ],
      },
    ],
  });
  expect(put.status, put.text).toBe(200);
  const narrowRole = await roleWith(env.admin, 'Narrow pages', [
    { permission: 'pages.read' },
    { permission: 'pages.write' },
    { permission: 'data.read', scope: { connectionId: env.connectionId, table: 'product', columns: ['name', 'price'] } },
  ]);
  const editor = await env.user('ed@example.com', ['editor']);
  const viewer = await env.user('vi@example.com', ['viewer']);
  const narrow = await env.user('na@example.com', [narrowRole]);
  return {
    ...env,
    editor,
    viewer,
    narrow,
    pages,
    async page(body, client = editor) {
      const res = await env.req(client, 'POST', '/api/v1/pages', body);
      expect(res.status, res.text).toBe(201);
      return res.body.data.page;
    },
  };
}
