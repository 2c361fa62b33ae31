import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { activeUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer, type ReceivedMail } from '../../test/helpers/smtp.js';
import { serviceProbe } from '../../test/helpers/jobs.js';
import { pagesStoreRef } from '../pages/store.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from '../exports/testing.js';

/** The attachment named `filename` of a received mail, decoded (base64 parts, as nodemailer writes files). */
export function attachmentOf(mail: ReceivedMail, filename: string): Buffer | null {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(mail.raw)?.[1];
  if (!boundary) return null;
  for (const part of mail.raw.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const headers = part.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
    if (!new RegExp(`filename="?${filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?`, 'i').test(headers)) continue;
    return Buffer.from(part.slice(split + 4).replace(/\s+/g, ''), 'base64');
  }
  return null;
}

const fileNameIn = (mail: ReceivedMail) => /filename="?([^";\r\n]+)"?/i.exec(mail.raw)?.[1] ?? '';

describe.each(['sqlite', 'postgres', 'mysql'] as const)('scheduled reports (issue 28 §4) on a %s meta store and a SQLite source', (meta) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let editor: { id: string; client: HttpClient };
  let other: { id: string; client: HttpClient };
  let source: Source;
  let connectionId: string;
  const smtp = new TestSmtpServer();
  const pages = serviceProbe(pagesStoreRef);

  beforeAll(async () => {
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({ meta, plugins: [...dataPermissionPlugins(), pages.plugin] }));
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    source = await emptySource('sqlite');
    await source.exec(PEOPLE_DDL.sqlite);
    await insertPeople(source, people(25));
    connectionId = await connect(admin, source);
    editor = await activeUser(inst, admin, 'editor@example.com', ['editor']);
    other = await activeUser(inst, admin, 'other@example.com', ['editor']);
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await smtp.stop();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    name: 'People daily',
    source: { kind: 'table', connectionId, table: 'people', query: { columns: ['id', 'name'], sort: 'id' } },
    format: 'csv',
    schedule: { cron: '0 7 * * *', timeZone: 'Europe/Berlin' },
    recipients: [{ userId: editor.id }],
    subject: 'People',
    message: 'The people.',
    ...over,
  });

  const runNow = async (client: HttpClient, reportId: string) => {
    const res = await client.post('/api/v1/jobs', { kind: 'scheduled-reports.run', payload: { reportId } });
    expect(res.status, res.text).toBe(201);
    return inst.app.kernel.jobs.waitFor(res.body.data.job.id, 30_000);
  };

  it('records croner’s DST behaviour: a 02:30 report on the spring-forward day runs once, at the next valid time (03:00)', async () => {
    const runs = await inst.app.kernel.schedules.nextRuns('30 2 * * *', 'Europe/Berlin', 3, new Date('2026-03-28T12:00:00Z'));
    // 2026-03-29 02:30 does not exist in Berlin (02:00 → 03:00): the run is 03:00 CEST, once; then 02:30 again.
    expect(runs.map((d) => d.toISOString())).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
    // Autumn: 02:30 happens twice on 2026-10-25; the report runs once, at the first.
    const autumn = await inst.app.kernel.schedules.nextRuns('30 2 * * *', 'Europe/Berlin', 2, new Date('2026-10-24T12:00:00Z'));
    expect(autumn.map((d) => d.toISOString())).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('refuses a six-field cron, every minute, an unknown time zone, an unknown source, and outside e-mails without reports.external', async () => {
    const codes = async (over: Record<string, unknown>) => {
      const res = await editor.client.post('/api/v1/scheduled-reports', body(over));
      expect(res.status, res.text).toBe(400);
      return (res.body.error.issues as Array<{ code: string; path: string }>).map((i) => `${i.path}:${i.code}`);
    };
    expect(await codes({ schedule: { cron: '0 0 7 * * *', timeZone: 'UTC' } })).toEqual(['body.schedule.cron:cron-invalid']);
    expect(await codes({ schedule: { cron: 'not a cron at all', timeZone: 'UTC' } })).toEqual(['body.schedule.cron:cron-invalid']);
    expect(await codes({ schedule: { cron: '* * * * *', timeZone: 'UTC' } })).toEqual(['body.schedule.cron:too-frequent']);
    expect(await codes({ schedule: { cron: '0,30 9 * * 1', timeZone: 'UTC' } })).toEqual(['body.schedule.cron:too-frequent']);
    expect(await codes({ schedule: { cron: '0 7 * * *', timeZone: 'Mars/Olympus' } })).toEqual(['body.schedule.timeZone:timezone-invalid']);
    expect(await codes({ source: { kind: 'table', connectionId, table: 'nope', query: {} } })).toEqual(['body.source:unknown-source']);
    expect(await codes({ source: { kind: 'dashboard', pageId: 'nope' }, format: 'summary' })).toEqual(['body.source.pageId:unknown-source']);
    expect(await codes({ source: { kind: 'table', connectionId, table: 'people', query: { columns: ['nope'] } } })).toEqual([
      'body.source.query.columns.0:unknown_column',
    ]);
    const outside = await editor.client.post('/api/v1/scheduled-reports', body({ recipients: [{ email: 'someone@elsewhere.test' }] }));
    expect(outside.status, outside.text).toBe(403);
    expect(outside.body.error.params.permission).toBe('reports.external');
    // A user's own address is no outside address.
    const inside = await editor.client.post('/api/v1/scheduled-reports', body({ recipients: [{ email: 'other@example.com' }] }));
    expect(inside.status, inside.text).toBe(201);
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${inside.body.data.report.id}`)).status).toBe(200);
  });

  it('creates a report with its next run, lists it to its owner only, and answers 404 to another editor', async () => {
    const created = await editor.client.post('/api/v1/scheduled-reports', body());
    expect(created.status, created.text).toBe(201);
    const report = created.body.data.report;
    expect(report).toMatchObject({ ownerId: editor.id, enabled: true, failures: 0, lastRun: null, format: 'csv' });
    const [next] = await inst.app.kernel.schedules.nextRuns('0 7 * * *', 'Europe/Berlin', 1);
    expect(report.nextRunAt).toBe(next!.getTime());
    const mine = await editor.client.get('/api/v1/scheduled-reports');
    expect(mine.body.data.reports.map((r: { id: string }) => r.id)).toContain(report.id);
    expect((await other.client.get('/api/v1/scheduled-reports')).body.data.reports).toEqual([]);
    expect((await admin.get('/api/v1/scheduled-reports')).body.data.reports.map((r: { id: string }) => r.id)).toContain(report.id);
    expect((await other.client.patch(`/api/v1/scheduled-reports/${report.id}`, { name: 'mine now' })).status).toBe(404);
    expect((await other.client.delete(`/api/v1/scheduled-reports/${report.id}`)).status).toBe(404);
    // Nor can another editor run it now.
    const theirs = await runNow(other.client, report.id);
    expect(theirs).toMatchObject({ state: 'failed', error: { code: 'REPORT_NOT_FOUND' } });
    // D6 pages: newest first, limit and cursor.
    const second = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'Second' }));
    const first = await editor.client.get('/api/v1/scheduled-reports?limit=1');
    expect(first.body.data.reports.map((r: { id: string }) => r.id)).toEqual([second.body.data.report.id]);
    const rest = await editor.client.get(`/api/v1/scheduled-reports?limit=1&cursor=${first.body.data.nextCursor}`);
    expect(rest.body.data).toMatchObject({ reports: [{ id: report.id }], nextCursor: null });
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${second.body.data.report.id}`)).status).toBe(200);
    const renamed = await editor.client.patch(`/api/v1/scheduled-reports/${report.id}`, { name: 'People every day' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data.report.name).toBe('People every day');
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${report.id}`)).status).toBe(200);
    expect((await editor.client.get('/api/v1/scheduled-reports')).body.data.reports).toEqual([]);
  });

  it('mails the export as an attachment (CSV and XLSX read back), run now through POST /jobs, history through GET /jobs', async () => {
    const created = await editor.client.post('/api/v1/scheduled-reports', body());
    const id = created.body.data.report.id as string;
    const before = smtp.received.length;
    const job = await runNow(editor.client, id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual(['editor@example.com']);
    expect(mail!.subject).toBe('People');
    expect(mail!.raw).toContain('The people.');
    const csv = attachmentOf(mail!, fileNameIn(mail!));
    expect(fileNameIn(mail!)).toMatch(/\.csv$/);
    const rows = parseCsv(csv!.toString('utf8'), { columns: true }) as Array<{ id: string; name: string }>;
    expect(rows).toHaveLength(25);
    expect(rows[0]).toEqual({ id: '1', name: 'Ann 1' });

    expect((await editor.client.patch(`/api/v1/scheduled-reports/${id}`, { format: 'xlsx' })).status).toBe(200);
    const xjob = await runNow(editor.client, id);
    expect(xjob.state, JSON.stringify(xjob.error)).toBe('succeeded');
    const [xmail] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(fileNameIn(xmail!)).toMatch(/\.xlsx$/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(attachmentOf(xmail!, fileNameIn(xmail!)) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, 'id', 'name']);
    expect(sheet.rowCount).toBe(26);
    expect(sheet.getRow(26).getCell(2).value).toBe(people(25)[24]!.name);

    // This report's runs alone: the jobs name it as their subject (J3).
    const history = await editor.client.get(`/api/v1/jobs?kind=scheduled-reports.run&subject=${id}`);
    expect(history.status, history.text).toBe(200);
    expect(history.body.data.jobs.map((j: { id: string; subject: string }) => [j.id, j.subject])).toEqual([
      [xjob.id, id],
      [job.id, id],
    ]);
    const report = (await editor.client.get('/api/v1/scheduled-reports')).body.data.reports.find((r: { id: string }) => r.id === id);
    expect(report.lastRun).toMatchObject({ jobId: xjob.id, state: 'succeeded', error: null });
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${id}`)).status).toBe(200);
  });

  it('mails each recipient once a run: a retry after one address failed mails only the rest', async () => {
    const created = await editor.client.post('/api/v1/scheduled-reports', body({ recipients: [{ userId: editor.id }, { userId: other.id }] }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.report.id as string;
    const before = smtp.received.length;
    smtp.refuseOnce.add('other@example.com');
    const job = await runNow(editor.client, id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.attempts).toBe(2);
    const mails = (await smtp.waitFor(before + 2)).slice(before);
    expect(mails.map((m) => m.to).sort()).toEqual([['editor@example.com'], ['other@example.com']]);
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${id}`)).status).toBe(200);
  });

  it('fails with REPORT_FORBIDDEN once the owner lost the permission, notifies the owner, and the third failure in a row disables it', async () => {
    const created = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'Loses access' }));
    const id = created.body.data.report.id as string;
    // The owner becomes a viewer: reports.read stays, reports.write and the export's grant go.
    expect((await admin.put(`/api/v1/users/${editor.id}/roles`, { roleIds: ['viewer'] })).status).toBe(200);
    const sent = smtp.received.length;
    for (let i = 1; i <= 3; i++) {
      // The scheduled runs' jobs, queued as the schedule queues them (the owner as creator).
      const job = await inst.app.kernel.schedules.fire('report', { id, cron: '0 7 * * *', timeZone: 'Europe/Berlin' }, Date.UTC(2030, 0, i, 6));
      expect(job).not.toBeNull();
      const done = await inst.app.kernel.jobs.waitFor(job!.id, 30_000);
      expect(done).toMatchObject({ state: 'failed', attempts: 1, error: { code: 'REPORT_FORBIDDEN' } });
    }
    expect(smtp.received.length).toBe(sent);
    const report = (await editor.client.get('/api/v1/scheduled-reports')).body.data.reports.find((r: { id: string }) => r.id === id);
    expect(report).toMatchObject({ enabled: false, failures: 3, nextRunAt: null, lastRun: { state: 'failed', error: { code: 'REPORT_FORBIDDEN' } } });
    expect(report.disabledReason).toMatch(/3 failed runs in a row.*REPORT_FORBIDDEN/);
    const notes = await editor.client.get('/api/v1/me/notifications');
    const titles = notes.body.data.notifications.map((n: { title: string }) => n.title);
    expect(titles.filter((t: string) => t.includes('Loses access'))).toHaveLength(3);
    expect(titles).toContain('Scheduled report “Loses access” was disabled');
    // A due time claimed already queues nothing (the claim is per owner kind, id and due time).
    expect(await inst.app.kernel.schedules.fire('report', { id, cron: '0 7 * * *', timeZone: 'Europe/Berlin' }, Date.UTC(2030, 0, 1, 6))).toBeNull();
    expect((await admin.put(`/api/v1/users/${editor.id}/roles`, { roleIds: ['editor'] })).status).toBe(200);
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${id}`)).status).toBe(200);
  });

  it('fails with REPORT_FORBIDDEN when the owner is suspended', async () => {
    const created = await other.client.post('/api/v1/scheduled-reports', body({ name: 'Suspended owner', recipients: [{ userId: other.id }] }));
    const id = created.body.data.report.id as string;
    expect((await admin.patch(`/api/v1/users/${other.id}`, { status: 'suspended' })).status).toBe(200);
    const job = await inst.app.kernel.schedules.fire('report', { id, cron: '0 7 * * *', timeZone: 'Europe/Berlin' }, Date.UTC(2031, 0, 1, 6));
    expect(await inst.app.kernel.jobs.waitFor(job!.id, 30_000)).toMatchObject({ state: 'failed', error: { code: 'REPORT_FORBIDDEN' } });
    expect((await admin.patch(`/api/v1/users/${other.id}`, { status: 'active' })).status).toBe(200);
  });

  it('mails a view’s page table and a dashboard’s summary, and tells pages the reports that use a page (PAGE_IN_USE)', async () => {
    const store = pages.held.service!;
    const list = await store.create({ slug: 'people-list', title: 'People', kind: 'list', connectionId, table: 'people' });
    const dash = await store.create({
      slug: 'people-dash',
      title: 'People at a glance',
      kind: 'dashboard',
      layout: { version: 1, widgets: [{ id: 'w1', title: 'How many', query: { connectionId, table: 'people', metric: { op: 'count' } } }] },
    });
    const view = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'A view', source: { kind: 'view', pageId: list.id } }));
    expect(view.status, view.text).toBe(201);
    const summary = await editor.client.post(
      '/api/v1/scheduled-reports',
      body({ name: 'A dashboard', source: { kind: 'dashboard', pageId: dash.id }, format: 'summary' }),
    );
    expect(summary.status, summary.text).toBe(201);
    // A table format for a dashboard, a summary for a view: refused.
    const wrong = await editor.client.post('/api/v1/scheduled-reports', body({ source: { kind: 'dashboard', pageId: dash.id }, format: 'csv' }));
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.issues.map((i: { code: string }) => i.code)).toEqual(['format-source']);

    const before = smtp.received.length;
    expect((await runNow(editor.client, view.body.data.report.id)).state).toBe('succeeded');
    const [vmail] = (await smtp.waitFor(before + 1)).slice(before);
    const rows = parseCsv(attachmentOf(vmail!, fileNameIn(vmail!))!.toString('utf8'), { columns: true }) as unknown[];
    expect(rows).toHaveLength(25);

    expect((await runNow(editor.client, summary.body.data.report.id)).state).toBe('succeeded');
    const [smail] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(smail!.raw).toContain('How many');
    expect(smail!.raw).toContain('People at a glance');

    const inUse = async (pageId: string) => {
      const out: Record<string, string[]> = {};
      for (const d of store.dependents) Object.assign(out, (await d.inUse?.(pageId)) ?? {});
      return out;
    };
    expect(await inUse(list.id)).toEqual({ reports: [view.body.data.report.id] });
    expect(await inUse(dash.id)).toEqual({ reports: [summary.body.data.report.id] });
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${view.body.data.report.id}`)).status).toBe(200);
    expect(await inUse(list.id)).toEqual({});
  });

  const csvRows = (mail: ReceivedMail, filename: string) => {
    const file = attachmentOf(mail, filename);
    expect(file, `attachment ${filename}`).not.toBeNull();
    return parseCsv(file!.toString('utf8'), { columns: true }) as Array<Record<string, string>>;
  };

  it('exports a view report as the shared view’s query (columns, sort, filters), else the default view, else the page’s config; refuses an unknown view; a deleted view falls back (RP3, RP8)', async () => {
    const store = pages.held.service!;
    const list = await store.create({ slug: 'people-views', title: 'People views', kind: 'list', connectionId, table: 'people' });
    const made = await editor.client.post(`/api/v1/pages/${list.id}/views`, {
      name: 'Top ten but three',
      query: {
        columns: ['id', 'name'],
        sort: '-id',
        filters: [
          { column: 'id', op: 'lte', value: '10' },
          { column: 'id', op: 'ne', value: '3' },
        ],
      },
    });
    expect(made.status, made.text).toBe(201);
    const viewId = made.body.data.view.id as string;
    // The same rows, read from the source directly.
    const direct = (await source
      .db()
      .selectFrom('people')
      .select(['id', 'name'])
      .where('id', '<=', 10)
      .where('id', '<>', 3)
      .orderBy('id', 'desc')
      .execute()) as Array<{
      id: number;
      name: string;
    }>;
    expect(direct).toHaveLength(9);

    // An unknown view, on create and on change: unknown-source.
    const bad = await editor.client.post('/api/v1/scheduled-reports', body({ source: { kind: 'view', pageId: list.id, viewId: 'nope' } }));
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string; code: string }) => `${i.path}:${i.code}`)).toEqual(['body.source.viewId:unknown-source']);

    // A view with a search and two conditions of one operator on one column is exported as the grid shows it (EX9).
    const searching = await editor.client.post(`/api/v1/pages/${list.id}/views`, {
      name: 'Searching',
      query: {
        search: ' 1',
        sort: 'id',
        filters: [
          { column: 'id', op: 'lte', value: '20' },
          { column: 'id', op: 'lte', value: '15' },
        ],
      },
    });
    expect(searching.status, searching.text).toBe(201);
    const searchReport = await editor.client.post(
      '/api/v1/scheduled-reports',
      body({ name: 'Searching', source: { kind: 'view', pageId: list.id, viewId: searching.body.data.view.id } }),
    );
    expect(searchReport.status, searchReport.text).toBe(201);
    const searchSent = smtp.received.length;
    const searchJob = await runNow(editor.client, searchReport.body.data.report.id);
    expect(searchJob.state, JSON.stringify(searchJob.error)).toBe('succeeded');
    const [searchMail] = (await smtp.waitFor(searchSent + 1)).slice(searchSent);
    const searched = csvRows(searchMail!, fileNameIn(searchMail!)).map((r) => r.id);
    const searchedDirect = (await source
      .db()
      .selectFrom('people')
      .select('id')
      .where('name', 'like', '% 1%')
      .where('id', '<=', 15)
      .orderBy('id')
      .execute()) as Array<{
      id: number;
    }>;
    expect(searched).toEqual(searchedDirect.map((r) => String(r.id)));
    expect(searched).toEqual(['1', '10', '11', '12', '13', '14', '15']);
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${searchReport.body.data.report.id}`)).status).toBe(200);
    expect((await editor.client.delete(`/api/v1/pages/${list.id}/views/${searching.body.data.view.id}`)).status).toBe(200);

    const created = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'The view', source: { kind: 'view', pageId: list.id, viewId } }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.report.id as string;
    const patchBad = await editor.client.patch(`/api/v1/scheduled-reports/${id}`, { source: { kind: 'view', pageId: list.id, viewId: 'gone' } });
    expect(patchBad.status).toBe(400);
    expect(patchBad.body.error.issues.map((i: { code: string }) => i.code)).toEqual(['unknown-source']);

    let sent = smtp.received.length;
    const job = await runNow(editor.client, id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const [mail] = (await smtp.waitFor(sent + 1)).slice(sent);
    const csv = attachmentOf(mail!, fileNameIn(mail!))!.toString('utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('id,name');
    expect(parseCsv(csv, { columns: true })).toEqual(direct.map((r) => ({ id: String(r.id), name: r.name })));

    // Without a view id: the page's config (PG5) while it has no default view…
    expect(
      (
        await editor.client.patch(`/api/v1/pages/${list.id}/config`, {
          columns: [{ column: 'id' }, { column: 'score' }],
          sort: [{ column: 'id', direction: 'desc' }],
          filters: [{ column: 'id', op: 'gt', value: '20' }],
        })
      ).status,
    ).toBe(200);
    const plain = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'The page', source: { kind: 'view', pageId: list.id } }));
    expect(plain.status, plain.text).toBe(201);
    sent = smtp.received.length;
    expect((await runNow(editor.client, plain.body.data.report.id)).state).toBe('succeeded');
    const [cmail] = (await smtp.waitFor(sent + 1)).slice(sent);
    const fromConfig = parseCsv(attachmentOf(cmail!, fileNameIn(cmail!))!.toString('utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(fromConfig.map((r) => r.id)).toEqual(['25', '24', '23', '22', '21']);
    expect(Object.keys(fromConfig[0]!)).toEqual(['id', 'score']);
    // …then its default view.
    expect((await editor.client.patch(`/api/v1/pages/${list.id}/views/${viewId}`, { isDefault: true })).status).toBe(200);
    sent = smtp.received.length;
    expect((await runNow(editor.client, plain.body.data.report.id)).state).toBe('succeeded');
    const [dmail] = (await smtp.waitFor(sent + 1)).slice(sent);
    expect(parseCsv(attachmentOf(dmail!, fileNameIn(dmail!))!.toString('utf8'), { columns: true })).toEqual(
      direct.map((r) => ({ id: String(r.id), name: r.name })),
    );

    // The view is deleted (RP8): the report falls back to the page's config and the mail says so.
    expect((await editor.client.delete(`/api/v1/pages/${list.id}/views/${viewId}`)).status).toBe(200);
    sent = smtp.received.length;
    const after = await runNow(editor.client, id);
    expect(after.state, JSON.stringify(after.error)).toBe('succeeded');
    const [fmail] = (await smtp.waitFor(sent + 1)).slice(sent);
    expect(fmail!.text.replace(/\s+/g, ' ')).toContain('The report’s view no longer exists');
    expect((parseCsv(attachmentOf(fmail!, fileNameIn(fmail!))!.toString('utf8'), { columns: true }) as Array<Record<string, string>>).map((r) => r.id)).toEqual(
      ['25', '24', '23', '22', '21'],
    );

    for (const r of [id, plain.body.data.report.id]) expect((await editor.client.delete(`/api/v1/scheduled-reports/${r}`)).status).toBe(200);
  });

  it('mails a dashboard’s summary: each widget’s number or groups (as the SQL gives them) in the mail and as a CSV; a failing widget shows its error', async () => {
    const store = pages.held.service!;
    const dash = await store.create({
      slug: 'people-numbers',
      title: 'People in numbers',
      kind: 'dashboard',
      layout: {
        version: 1,
        widgets: [
          { id: 'sum', title: 'Total score', query: { connectionId, table: 'people', metric: { op: 'sum', column: 'score' } } },
          { id: 'act', title: 'People by active', query: { connectionId, table: 'people', metric: { op: 'count' }, groupBy: { column: 'active' } } },
          { id: 'bad', title: 'Broken', query: { connectionId, table: 'people', metric: { op: 'sum', column: 'no_such_column' } } },
          { id: 'born', title: 'Born per day', query: { connectionId, table: 'people', metric: { op: 'count' }, timeBucket: { column: 'born', unit: 'day' } } },
        ],
      },
    });
    const created = await editor.client.post(
      '/api/v1/scheduled-reports',
      body({ name: 'Numbers', source: { kind: 'dashboard', pageId: dash.id }, format: 'summary' }),
    );
    expect(created.status, created.text).toBe(201);
    const sent = smtp.received.length;
    const job = await runNow(editor.client, created.body.data.report.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const [mail] = (await smtp.waitFor(sent + 1)).slice(sent);

    const [sum] = (await source
      .db()
      .selectFrom('people')
      .select((eb) => eb.fn.sum('score').as('s'))
      .execute()) as Array<{ s: number | string }>;
    const total = Number(sum!.s);
    const byActive = (await source
      .db()
      .selectFrom('people')
      .select(['active', (eb) => eb.fn.countAll().as('n')])
      .groupBy('active')
      .execute()) as Array<{ active: number | boolean; n: number | string }>;
    const expected = new Map(byActive.map((r) => [String(Boolean(Number(r.active))), Number(r.n)]));

    expect(mail!.text).toContain(`Total score: ${total.toLocaleString('en-US', { maximumFractionDigits: 6 })}`);
    for (const [k, n] of expected) expect(mail!.text).toContain(`${k}: ${n}`);
    expect(mail!.text.replace(/\s+/g, ' ')).toMatch(/Broken: could not be computed\. VALIDATION_FAILED/);
    expect(mail!.raw).toMatch(/text\/html/i);

    expect(csvRows(mail!, '01-total-score.csv')).toEqual([{ value: String(total) }]);
    const groups = csvRows(mail!, '02-people-by-active.csv');
    expect(new Map(groups.map((g) => [g.key, Number(g.value)]))).toEqual(expected);
    expect(attachmentOf(mail!, '03-broken.csv')).toBeNull();
    // A series: every point in its CSV, its last five in the mail.
    const perDay = (await source
      .db()
      .selectFrom('people')
      .select(['born', (eb) => eb.fn.countAll().as('n')])
      .where('born', 'is not', null)
      .groupBy('born')
      .orderBy('born')
      .execute()) as Array<{ born: string | Date; n: number | string }>;
    const day = (b: string | Date) => (b instanceof Date ? b.toISOString().slice(0, 10) : String(b).slice(0, 10));
    const points = csvRows(mail!, '04-born-per-day.csv');
    expect(points.map((p) => [p.t!.slice(0, 10), Number(p.value)])).toEqual(perDay.map((r) => [day(r.born), Number(r.n)]));
    expect(mail!.text).toContain(`Born per day (last 5 of ${perDay.length} points):`);
    expect(job.result).toMatchObject({ recipients: 1 });
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${created.body.data.report.id}`)).status).toBe(200);
  });

  it('end to end: DELETE /pages/{id} answers 409 PAGE_IN_USE naming the report that uses the page; once the report is deleted the page deletes', async () => {
    const store = pages.held.service!;
    const list = await store.create({ slug: 'people-in-use', title: 'People in use', kind: 'list', connectionId, table: 'people' });
    const created = await editor.client.post('/api/v1/scheduled-reports', body({ name: 'Holds the page', source: { kind: 'view', pageId: list.id } }));
    expect(created.status, created.text).toBe(201);
    const reportId = created.body.data.report.id as string;
    const refused = await editor.client.delete(`/api/v1/pages/${list.id}`);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'PAGE_IN_USE', params: { reports: [reportId] } });
    expect((await editor.client.get(`/api/v1/pages/${list.id}`)).status).toBe(200);
    expect((await editor.client.delete(`/api/v1/scheduled-reports/${reportId}`)).status).toBe(200);
    const deleted = await editor.client.delete(`/api/v1/pages/${list.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await editor.client.get(`/api/v1/pages/${list.id}`)).status).toBe(404);
  });

  it('says in the mail that an export above 10 MiB is too large to attach, and links it', async () => {
    await source.exec(
      `create table wide (id integer primary key not null, body text not null);
       with recursive n(i) as (select 1 union all select i + 1 from n where i < 11000) insert into wide select i, hex(randomblob(512)) from n;`,
    );
    expect((await admin.post(`/api/v1/connections/${connectionId}/introspect`)).status).toBe(200);
    const created = await editor.client.post(
      '/api/v1/scheduled-reports',
      body({ name: 'Too big', source: { kind: 'table', connectionId, table: 'wide', query: {} }, format: 'jsonl' }),
    );
    expect(created.status, created.text).toBe(201);
    const before = smtp.received.length;
    const job = await runNow(editor.client, created.body.data.report.id);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.result).toMatchObject({ attached: false });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.raw).not.toMatch(/filename=/i);
    const exportId = (job.result as { exportId: string }).exportId;
    expect(mail!.text).toContain('larger than a mail may carry');
    expect(mail!.text.replace(/\s+/g, '')).toContain(`/api/v1/exports/${exportId}/download`);
    // The owner downloads it signed in.
    const file = await editor.client.get(`/api/v1/exports/${exportId}/download`);
    expect(file.status).toBe(200);
  }, 60_000);

  it('removes a table source’s reports with their connection', async () => {
    const second = await emptySource('sqlite');
    try {
      await second.exec(PEOPLE_DDL.sqlite);
      const otherConnection = await connect(admin, second, 'Second source');
      const created = await editor.client.post(
        '/api/v1/scheduled-reports',
        body({ name: 'Goes away', source: { kind: 'table', connectionId: otherConnection, table: 'people', query: {} } }),
      );
      expect(created.status, created.text).toBe(201);
      expect((await admin.delete(`/api/v1/connections/${otherConnection}`)).status).toBe(200);
      const left = (await editor.client.get('/api/v1/scheduled-reports')).body.data.reports.map((r: { id: string }) => r.id);
      expect(left).not.toContain(created.body.data.report.id);
    } finally {
      await second.cleanup();
    }
  });
});
