import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import type { RequestBody } from '../../api/types';
import { bootstrapKey, useBootstrap, type Bootstrap, type Nav } from '../../api/bootstrap';
import { t, type MessageId } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { usePermissions } from '../account/api';
import { pagePaths, pagesKeys, saveNavOrder, usePagesNav } from './api';
import './pages.css';
import { PageHeader } from '../../ui/PageHeader';

/*
 * The navigation editor (pages.admin, issue 28 screen 3, decisions DB30): the whole navigation
 * as a draft, arranged by drag and drop or by each item's buttons, saved in one PUT
 * /pages/nav-order. The server's issues show on the entries they name.
 */

type EntryRef = { pageId: string } | { appKey: string; surface: string };
interface DraftEntry {
  uid: string;
  title: string;
  kind: 'page' | 'app';
  ref: EntryRef;
}
interface DraftSection {
  uid: string;
  id: string;
  title: string;
  /** A section the server has: its identifier stays (pages are created into it by id). */
  stored: boolean;
  entries: DraftEntry[];
}

let uids = 0;
const uid = () => `n${++uids}`;

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const kebab = (title: string) =>
  title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');

function draftOf(nav: Nav): DraftSection[] {
  return nav.sections.map((s) => ({
    uid: uid(),
    id: s.id,
    title: s.title,
    stored: true,
    entries: s.entries.map((e) =>
      e.type === 'page'
        ? { uid: uid(), title: e.title, kind: 'page' as const, ref: { pageId: e.pageId } }
        : { uid: uid(), title: e.title, kind: 'app' as const, ref: { appKey: e.appKey, surface: e.surface } },
    ),
  }));
}

const bodyOf = (draft: DraftSection[]): RequestBody<'/pages/nav-order', 'put'> => ({
  sections: draft.map((s) => ({ id: s.id, title: s.title.trim(), entries: s.entries.map((e) => e.ref) })),
});

const ISSUE: Record<string, MessageId> = {
  'unknown-page': 'pages.navEditor.issue.unknown-page',
  'duplicate-entry': 'pages.navEditor.issue.duplicate-entry',
  'unknown-surface': 'pages.navEditor.issue.unknown-surface',
  'duplicate-section': 'pages.navEditor.issue.duplicate-section',
};

/** The server's issues by the draft item they name (`body.sections.N.entries.M`, `body.sections.N.id`). */
function issuesOf(error: unknown, sent: DraftSection[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!(error instanceof ApiError)) return out;
  for (const issue of error.issues) {
    const m = /^body\.sections\.(\d+)(?:\.entries\.(\d+)|\.(id|title))?/.exec(issue.path);
    if (!m) continue;
    const section = sent[Number(m[1])];
    if (!section) continue;
    const target = m[2] !== undefined ? section.entries[Number(m[2])]?.uid : section.uid;
    if (!target) continue;
    const known = ISSUE[issue.code];
    out.set(target, known ? t(known) : issue.message);
  }
  return out;
}

export function NavEditor() {
  useTitle('pages.navEditor.title');
  const permissions = usePermissions();
  if (permissions && !permissions.has('pages.admin'))
    return (
      <>
        <h1>{t('pages.navEditor.title')}</h1>
        <p>{t('pages.navEditor.forbidden')}</p>
      </>
    );
  return <Editor />;
}

function Editor() {
  const bootstrap = useBootstrap();
  const pages = usePagesNav();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<DraftSection[] | null>(null);
  const [dirty, setDirty] = useState(false);
  const [issues, setIssues] = useState<Map<string, string>>(new Map());
  const [announce, setAnnounce] = useState('');
  const [saved, setSaved] = useState(false);
  const focusNext = useRef<string | null>(null);
  const dragging = useRef<{ type: 'entry' | 'section'; uid: string } | null>(null);
  const [dropTarget, setDropTarget] = useState<string | null>(null);

  const nav = bootstrap.data?.session?.nav;
  // The server's navigation, until the person changes something (then their draft stays).
  useEffect(() => {
    if (nav && !dirty) setDraft(draftOf(nav));
  }, [nav, dirty]);

  // The control that moved keeps the focus (React re-inserts a moved item, which loses it).
  useEffect(() => {
    const key = focusNext.current;
    if (!key) return;
    focusNext.current = null;
    // A button that went disabled (the item reached an end) hands the focus to the opposite one.
    const opposite: Record<string, string> = { up: 'down', down: 'up', sup: 'sdown', sdown: 'sup' };
    const [item, control = ''] = key.split(':');
    for (const candidate of [key, `${item}:${opposite[control] ?? control}`, `${item}:item`]) {
      const el = document.querySelector<HTMLElement>(`[data-focus="${candidate}"]`);
      if (el && !(el as HTMLButtonElement).disabled) return void el.focus();
    }
  });

  const save = useMutation({
    mutationFn: (sent: DraftSection[]) => saveNavOrder(bodyOf(sent)),
    onSuccess: async (answer) => {
      setIssues(new Map());
      // The saved navigation is /bootstrap's at once (the draft follows it), before the refetch confirms it.
      queryClient.setQueryData<Bootstrap>(bootstrapKey, (old) => (old?.session ? { ...old, session: { ...old.session, nav: answer } } : old));
      setDraft(draftOf(answer));
      setDirty(false);
      setSaved(true);
      setAnnounce(t('pages.navEditor.saved'));
      await Promise.all([queryClient.invalidateQueries({ queryKey: bootstrapKey }), queryClient.invalidateQueries({ queryKey: pagesKeys.all })]);
    },
    onError: (error, sent) => setIssues(issuesOf(error, sent)),
  });

  if (bootstrap.isError) return <ErrorPanel error={bootstrap.error} onRetry={() => void bootstrap.refetch()} />;
  if (!draft) return <Loading />;

  const change = (next: DraftSection[], message: string, focus?: string) => {
    setDraft(next);
    setDirty(true);
    setSaved(false);
    setAnnounce(message);
    if (focus) focusNext.current = focus;
  };
  const where = (entryUid: string) => {
    for (const [si, s] of draft.entries()) {
      const ei = s.entries.findIndex((e) => e.uid === entryUid);
      if (ei >= 0) return { si, ei, section: s, entry: s.entries[ei]! };
    }
    return null;
  };

  const moveEntry = (entryUid: string, delta: -1 | 1) => {
    const at = where(entryUid);
    if (!at) return;
    const to = at.ei + delta;
    if (to < 0 || to >= at.section.entries.length) return;
    const entries = [...at.section.entries];
    entries.splice(at.ei, 1);
    entries.splice(to, 0, at.entry);
    const next = draft.map((s, i) => (i === at.si ? { ...s, entries } : s));
    const values = { title: at.entry.title, position: String(to + 1), count: String(entries.length), section: at.section.title };
    change(next, t(delta < 0 ? 'pages.navEditor.movedUp' : 'pages.navEditor.movedDown', values), `${entryUid}:${delta < 0 ? 'up' : 'down'}`);
  };
  /** Puts an entry into a section, before `beforeUid` or at its end. */
  const moveEntryTo = (entryUid: string, sectionUid: string, beforeUid?: string, focus?: string) => {
    const at = where(entryUid);
    if (!at || entryUid === beforeUid) return;
    const without = draft.map((s, i) => (i === at.si ? { ...s, entries: s.entries.filter((e) => e.uid !== entryUid) } : s));
    const next = without.map((s) => {
      if (s.uid !== sectionUid) return s;
      const entries = [...s.entries];
      const index = beforeUid ? entries.findIndex((e) => e.uid === beforeUid) : -1;
      entries.splice(index >= 0 ? index : entries.length, 0, at.entry);
      return { ...s, entries };
    });
    const target = next.find((s) => s.uid === sectionUid)!;
    const position = target.entries.findIndex((e) => e.uid === entryUid);
    const message =
      target.uid === at.section.uid
        ? t('pages.navEditor.movedDown', { title: at.entry.title, position: String(position + 1), count: String(target.entries.length), section: target.title })
        : t('pages.navEditor.movedTo', { title: at.entry.title, section: target.title });
    change(next, message, focus);
  };
  const removeEntry = (entryUid: string) => {
    const at = where(entryUid);
    if (!at) return;
    const next = draft.map((s, i) => (i === at.si ? { ...s, entries: s.entries.filter((e) => e.uid !== entryUid) } : s));
    const neighbour = at.section.entries[at.ei + 1] ?? at.section.entries[at.ei - 1];
    change(next, t('pages.navEditor.removed', { title: at.entry.title }), neighbour ? `${neighbour.uid}:item` : `${at.section.uid}:title`);
  };
  const moveSection = (sectionUid: string, to: number, focus?: string) => {
    const from = draft.findIndex((s) => s.uid === sectionUid);
    if (from < 0 || to < 0 || to >= draft.length || from === to) return;
    const next = [...draft];
    const [section] = next.splice(from, 1);
    next.splice(to, 0, section!);
    change(next, t('pages.navEditor.sectionMoved', { title: section!.title, position: String(to + 1), count: String(next.length) }), focus);
  };
  const removeSection = (sectionUid: string) => {
    const section = draft.find((s) => s.uid === sectionUid);
    if (!section) return;
    change(
      draft.filter((s) => s.uid !== sectionUid),
      t('pages.navEditor.sectionRemoved', { title: section.title }),
    );
    document.getElementById('nav-editor-new-title')?.focus();
  };
  const renameSection = (sectionUid: string, title: string) => {
    setDraft(draft.map((s) => (s.uid === sectionUid ? { ...s, title } : s)));
    setDirty(true);
    setSaved(false);
  };

  // Drag and drop: an entry onto an entry (goes before it) or onto a section's list (its end); a section onto a section.
  const onDragStart = (e: DragEvent, type: 'entry' | 'section', itemUid: string) => {
    e.stopPropagation();
    dragging.current = { type, uid: itemUid };
    e.dataTransfer.effectAllowed = 'move';
    e.dataTransfer.setData('text/plain', itemUid);
  };
  const onDragOver = (e: DragEvent, type: 'entry' | 'section', targetUid: string) => {
    if (!dragging.current) return;
    if (type === 'section' && dragging.current.type !== 'section' && dragging.current.type !== 'entry') return;
    e.preventDefault();
    e.stopPropagation();
    e.dataTransfer.dropEffect = 'move';
    if (dropTarget !== targetUid) setDropTarget(targetUid);
  };
  const onDrop = (e: DragEvent, sectionUid: string, beforeUid?: string) => {
    e.preventDefault();
    e.stopPropagation();
    const drag = dragging.current;
    dragging.current = null;
    setDropTarget(null);
    if (!drag) return;
    if (drag.type === 'entry') moveEntryTo(drag.uid, sectionUid, beforeUid);
    else
      moveSection(
        drag.uid,
        draft.findIndex((s) => s.uid === sectionUid),
      );
  };
  const onDragEnd = () => {
    dragging.current = null;
    setDropTarget(null);
  };

  const placed = new Map<string, string>();
  for (const s of draft) for (const e of s.entries) if ('pageId' in e.ref) placed.set(e.ref.pageId, s.title);

  return (
    <div className="nav-editor">
      <PageHeader title={t('pages.navEditor.title')} description={t('pages.navEditor.intro')} />
      <p className="visually-hidden" aria-live="polite" role="status">
        {announce}
      </p>
      {save.isError && (
        <div className="form-error" role="alert">
          <p>{issues.size > 0 ? t('pages.navEditor.refused') : errorText(save.error)}</p>
        </div>
      )}
      <ol className="nav-editor-sections">
        {draft.map((section, si) => {
          const headingId = `nav-editor-${section.uid}`;
          const sectionIssue = issues.get(section.uid);
          return (
            <li
              key={section.uid}
              className={`nav-editor-section${dropTarget === section.uid ? ' drop-target' : ''}`}
              onDragOver={(e) => onDragOver(e, 'section', section.uid)}
              onDrop={(e) => onDrop(e, section.uid)}
              onDragLeave={() => setDropTarget((d) => (d === section.uid ? null : d))}
              data-testid="nav-section"
            >
              <section aria-labelledby={headingId}>
                <div className="nav-editor-section-head" draggable onDragStart={(e) => onDragStart(e, 'section', section.uid)} onDragEnd={onDragEnd}>
                  <span className="nav-editor-grip" aria-hidden="true" title={t('pages.navEditor.drag')}>
                    ⠿
                  </span>
                  <h2 id={headingId}>{section.title || section.id}</h2>
                  <span className="hint">{t('pages.navEditor.sectionId', { id: section.id })}</span>
                  <span className="nav-editor-buttons">
                    <button
                      type="button"
                      className="secondary"
                      data-focus={`${section.uid}:sup`}
                      disabled={si === 0}
                      aria-label={t('pages.navEditor.sectionUp', { title: section.title })}
                      onClick={() => moveSection(section.uid, si - 1, `${section.uid}:sup`)}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      data-focus={`${section.uid}:sdown`}
                      disabled={si === draft.length - 1}
                      aria-label={t('pages.navEditor.sectionDown', { title: section.title })}
                      onClick={() => moveSection(section.uid, si + 1, `${section.uid}:sdown`)}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={t('pages.navEditor.sectionRemove', { title: section.title })}
                      onClick={() => removeSection(section.uid)}
                    >
                      ✕
                    </button>
                  </span>
                </div>
                <label className="nav-editor-rename">
                  <span>{t('pages.navEditor.sectionTitle')}</span>
                  <input
                    value={section.title}
                    maxLength={120}
                    required
                    data-focus={`${section.uid}:title`}
                    aria-invalid={section.title.trim() === '' || undefined}
                    onChange={(e) => renameSection(section.uid, e.target.value)}
                  />
                </label>
                {sectionIssue && <p className="field-error">{sectionIssue}</p>}
                {section.entries.length === 0 ? (
                  <p className="nav-editor-empty hint">{t('pages.navEditor.sectionEmpty')}</p>
                ) : (
                  <ol className="nav-editor-entries" aria-labelledby={headingId}>
                    {section.entries.map((entry, ei) => {
                      const issue = issues.get(entry.uid);
                      return (
                        <li
                          key={entry.uid}
                          className={`nav-editor-entry${dropTarget === entry.uid ? ' drop-target' : ''}${issue ? ' has-issue' : ''}`}
                          draggable
                          onDragStart={(e) => onDragStart(e, 'entry', entry.uid)}
                          onDragEnd={onDragEnd}
                          onDragOver={(e) => dragging.current?.type === 'entry' && onDragOver(e, 'entry', entry.uid)}
                          onDrop={(e) => dragging.current?.type === 'entry' && onDrop(e, section.uid, entry.uid)}
                          data-testid="nav-entry"
                        >
                          <span className="nav-editor-grip" aria-hidden="true" title={t('pages.navEditor.drag')}>
                            ⠿
                          </span>
                          <span className="nav-editor-entry-title" tabIndex={-1} data-focus={`${entry.uid}:item`}>
                            {entry.title}{' '}
                            <span className="nav-editor-kind">{t(entry.kind === 'page' ? 'pages.navEditor.kindPage' : 'pages.navEditor.kindApp')}</span>
                          </span>
                          <span className="nav-editor-buttons">
                            <button
                              type="button"
                              className="secondary"
                              data-focus={`${entry.uid}:up`}
                              disabled={ei === 0}
                              aria-label={t('pages.navEditor.up', { title: entry.title })}
                              onClick={() => moveEntry(entry.uid, -1)}
                            >
                              ↑
                            </button>
                            <button
                              type="button"
                              className="secondary"
                              data-focus={`${entry.uid}:down`}
                              disabled={ei === section.entries.length - 1}
                              aria-label={t('pages.navEditor.down', { title: entry.title })}
                              onClick={() => moveEntry(entry.uid, 1)}
                            >
                              ↓
                            </button>
                            <select
                              aria-label={t('pages.navEditor.moveTo', { title: entry.title })}
                              value={section.uid}
                              data-focus={`${entry.uid}:section`}
                              onChange={(e) => moveEntryTo(entry.uid, e.target.value, undefined, `${entry.uid}:section`)}
                            >
                              {draft.map((s) => (
                                <option key={s.uid} value={s.uid}>
                                  {s.title || s.id}
                                </option>
                              ))}
                            </select>
                            <button
                              type="button"
                              className="secondary"
                              aria-label={t('pages.navEditor.remove', { title: entry.title })}
                              onClick={() => removeEntry(entry.uid)}
                            >
                              ✕
                            </button>
                          </span>
                          {issue && <p className="field-error nav-editor-issue">{issue}</p>}
                        </li>
                      );
                    })}
                  </ol>
                )}
              </section>
            </li>
          );
        })}
      </ol>

      <div className="nav-editor-forms">
        <NewSection
          taken={new Set(draft.map((s) => s.id))}
          onAdd={(id, title) => {
            const section: DraftSection = { uid: uid(), id, title, stored: false, entries: [] };
            change([...draft, section], t('pages.navEditor.sectionAdded', { title }), `${section.uid}:title`);
          }}
        />
        <AddPage
          pages={(pages.data ?? []).map((p) => ({ id: p.id, title: p.title, section: placed.get(p.id) }))}
          sections={draft.map((s) => ({ uid: s.uid, title: s.title || s.id }))}
          onAdd={(page, sectionUid) => {
            const entry: DraftEntry = { uid: uid(), title: page.title, kind: 'page', ref: { pageId: page.id } };
            const section = draft.find((s) => s.uid === sectionUid)!;
            change(
              draft.map((s) => (s.uid === sectionUid ? { ...s, entries: [...s.entries, entry] } : s)),
              t('pages.navEditor.added', { title: page.title, section: section.title }),
            );
          }}
        />
      </div>

      <div className="actions nav-editor-actions">
        <button type="button" disabled={save.isPending || draft.some((s) => s.title.trim() === '')} onClick={() => save.mutate(draft)}>
          {save.isPending ? t('pages.navEditor.saving') : t('pages.navEditor.save')}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={!dirty || save.isPending}
          onClick={() => {
            setIssues(new Map());
            save.reset();
            setDirty(false);
            if (nav) setDraft(draftOf(nav));
          }}
        >
          {t('pages.navEditor.discard')}
        </button>
        {dirty && <span className="hint">{t('pages.navEditor.unsaved')}</span>}
        {saved && !dirty && <span className="notice">{t('pages.navEditor.saved')}</span>}
        <Link href={pagePaths.list}>{t('pages.list.title')}</Link>
      </div>
    </div>
  );
}

function NewSection({ taken, onAdd }: { taken: ReadonlySet<string>; onAdd: (id: string, title: string) => void }) {
  const [title, setTitle] = useState('');
  const [id, setId] = useState('');
  const [idTouched, setIdTouched] = useState(false);
  const [error, setError] = useState<{ field: 'title' | 'id'; message: MessageId } | null>(null);
  const formId = useId();
  const shownId = idTouched ? id : kebab(title);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const clean = title.trim();
    if (!clean || clean.length > 120) return setError({ field: 'title', message: 'pages.navEditor.titleRequired' });
    if (!KEBAB.test(shownId) || shownId.length > 40) return setError({ field: 'id', message: 'pages.navEditor.idInvalid' });
    if (taken.has(shownId)) return setError({ field: 'id', message: 'pages.navEditor.idTaken' });
    setError(null);
    onAdd(shownId, clean);
    setTitle('');
    setId('');
    setIdTouched(false);
  };
  return (
    <form className="nav-editor-form" onSubmit={submit} noValidate aria-labelledby={`${formId}-title`}>
      <h2 id={`${formId}-title`}>{t('pages.navEditor.newSection')}</h2>
      <div className="field">
        <label htmlFor="nav-editor-new-title">{t('pages.navEditor.newSectionTitle')}</label>
        <input
          id="nav-editor-new-title"
          value={title}
          maxLength={120}
          aria-invalid={error?.field === 'title' || undefined}
          aria-describedby={error?.field === 'title' ? `${formId}-error` : undefined}
          onChange={(e) => setTitle(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={`${formId}-id`}>{t('pages.navEditor.newSectionId')}</label>
        <input
          id={`${formId}-id`}
          value={shownId}
          maxLength={40}
          aria-invalid={error?.field === 'id' || undefined}
          aria-describedby={`${formId}-hint${error?.field === 'id' ? ` ${formId}-error` : ''}`}
          onChange={(e) => {
            setIdTouched(true);
            setId(e.target.value);
          }}
        />
        <p className="hint" id={`${formId}-hint`}>
          {t('pages.navEditor.newSectionIdHint')}
        </p>
      </div>
      {error && (
        <p className="field-error" id={`${formId}-error`} role="alert">
          {t(error.message)}
        </p>
      )}
      <button type="submit">{t('pages.navEditor.addSection')}</button>
    </form>
  );
}

function AddPage({
  pages,
  sections,
  onAdd,
}: {
  pages: { id: string; title: string; section: string | undefined }[];
  sections: { uid: string; title: string }[];
  onAdd: (page: { id: string; title: string }, sectionUid: string) => void;
}) {
  const [pageId, setPageId] = useState('');
  const [sectionUid, setSectionUid] = useState('');
  const formId = useId();
  const loose = pages.filter((p) => p.section === undefined);
  const placedPages = pages.filter((p) => p.section !== undefined);
  const chosenSection = sections.some((s) => s.uid === sectionUid) ? sectionUid : (sections[0]?.uid ?? '');
  const chosenPage = pages.some((p) => p.id === pageId) ? pageId : (loose[0]?.id ?? '');
  return (
    <form
      className="nav-editor-form"
      aria-labelledby={`${formId}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        const page = pages.find((p) => p.id === chosenPage);
        if (page && chosenSection) onAdd(page, chosenSection);
        setPageId('');
      }}
    >
      <h2 id={`${formId}-title`}>{t('pages.navEditor.addPage')}</h2>
      <div className="field">
        <label htmlFor={`${formId}-page`}>{t('pages.navEditor.page')}</label>
        <select id={`${formId}-page`} value={chosenPage} onChange={(e) => setPageId(e.target.value)}>
          {loose.length === 0 && <option value="">{t('pages.field.choose')}</option>}
          {loose.length > 0 && (
            <optgroup label={t('pages.navEditor.notPlaced')}>
              {loose.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.title}
                </option>
              ))}
            </optgroup>
          )}
          {placedPages.length > 0 && (
            <optgroup label={t('pages.navEditor.placed')}>
              {placedPages.map((p) => (
                <option key={p.id} value={p.id}>
                  {t('pages.navEditor.placedIn', { title: p.title, section: p.section! })}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${formId}-section`}>{t('pages.navEditor.toSection')}</label>
        <select id={`${formId}-section`} value={chosenSection} onChange={(e) => setSectionUid(e.target.value)}>
          {sections.map((s) => (
            <option key={s.uid} value={s.uid}>
              {s.title}
            </option>
          ))}
        </select>
      </div>
      {sections.length === 0 && <p className="hint">{t('pages.navEditor.noSection')}</p>}
      <button type="submit" disabled={!chosenPage || !chosenSection}>
        {t('pages.navEditor.add')}
      </button>
    </form>
  );
}
