import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import type { ErrorIssue } from '../../api/types';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Field, FormError, SelectField } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useReplaceMapping, useSurfaces, type Addon, type DomainEntry as Entry, type Surface } from './api';
import { SurfacesSection, type Said } from './SurfacesSection';
import { useManagesAddOns } from './surfaces';
import { AddIcon, DeleteIcon } from '../../ui/icons';

/** The server's issue codes in words (AO16); a code the dashboard does not know is shown as the server said it. */
const ISSUE_WORDS: Record<string, MessageId> = {
  'host-invalid': 'addOns.domains.issue.hostInvalid',
  'host-own': 'addOns.domains.issue.hostOwn',
  'host-duplicate': 'addOns.domains.issue.hostDuplicate',
  'unknown-app': 'addOns.domains.issue.unknownApp',
  'unknown-surface': 'addOns.domains.issue.unknownSurface',
  'not-public-page': 'addOns.domains.issue.notPublicPage',
  too_small: 'addOns.domains.issue.hostMissing',
};
const words = (issue: ErrorIssue) => (ISSUE_WORDS[issue.code] ? t(ISSUE_WORDS[issue.code]!) : issue.message);
const ISSUE_AT = /^body\.domains\.(\d+)\.(\w+)$/;

/** Refusals sorted out: those of the entry at `index` by field, the others (names already mapped) as lines. */
function refusals(error: unknown, sent: Entry[], index: number | null): { fields: Record<string, string>; others: string[] } {
  const fields: Record<string, string> = {};
  const others: string[] = [];
  if (!(error instanceof ApiError)) return { fields, others };
  for (const issue of error.issues) {
    const at = ISSUE_AT.exec(issue.path);
    if (at && Number(at[1]) === index) fields[at[2]!] ??= words(issue);
    else if (at) others.push(t('addOns.domains.otherRefused', { host: sent[Number(at[1])]?.host ?? '?', problem: words(issue) }));
    else others.push(issue.message);
  }
  return { fields, others };
}

/** Where a mapped name is opened: the dashboard's own protocol (behind TLS, the name is served over TLS too). */
const hostUrl = (host: string) => `${window.location.protocol}//${host}/`;

/**
 * The host names that serve this app's public pages (D28, AO16): each opens in a new tab; a
 * person who may manage add-ons maps another name to a page or removes one (confirmed).
 */
export function DomainsSection({ addon }: { addon: Addon }) {
  const hasPublic = addon.surfaces.some((s) => s.kind === 'public-page');
  const surfaces = useSurfaces(hasPublic);
  const manages = useManagesAddOns();
  const [said, setSaid] = useState<Said>(null);
  if (!hasPublic) return null;
  const pages = (surfaces.data ?? []).filter((s) => s.appKey === addon.key && s.kind === 'public-page');
  const titleOf = (surface: string) => pages.find((p) => p.name === surface)?.title ?? surface;
  const mapped = pages.flatMap((p) => p.domains).sort((a, b) => a.host.localeCompare(b.host));
  return (
    <SurfacesSection
      id="addon-domains"
      title={t('addOns.domains.title')}
      hint={
        <>
          {t('addOns.domains.help')} <Link href="/public-api">{t('addOns.domains.publicApiLink')}</Link>
        </>
      }
      surfaces={surfaces}
      said={said}
      list={
        <>
          <ul className="addons-usable" data-testid="usable-at">
            {pages.map((p) => (
              <li key={p.name}>
                {p.usableAt.domains.length
                  ? t('addOns.domains.usableAt', { title: p.title, hosts: p.usableAt.domains.join(', ') })
                  : t('addOns.domains.usableNowhere', { title: p.title })}
              </li>
            ))}
          </ul>
          {mapped.length === 0 ? (
            <p>{t('addOns.domains.none')}</p>
          ) : (
            <ul className="addons-versions" data-testid="mapped-domains" aria-label={t('addOns.domains.listLabel', { name: addon.name })}>
              {mapped.map((d) => (
                <li key={d.host}>
                  <a href={hostUrl(d.host)} target="_blank" rel="noopener noreferrer">
                    {d.host}
                  </a>
                  {pages.length > 1 && <span>{t('addOns.domains.serves', { title: titleOf(d.surface) })}</span>}
                  {d.instance && <span>{t('addOns.domains.instance', { instance: d.instance })}</span>}
                  {manages && (
                    <RemoveName
                      host={d.host}
                      title={titleOf(d.surface)}
                      onRemoved={() => setSaid({ text: t('addOns.domains.removed', { host: d.host }), focus: true })}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      }
    >
      {manages && (
        <AddName
          addon={addon}
          pages={pages}
          onAdded={(host, surface) => setSaid({ text: t('addOns.domains.added', { host, title: titleOf(surface) }), focus: false })}
          onStart={() => setSaid(null)}
        />
      )}
    </SurfacesSection>
  );
}

function AddName({
  addon,
  pages,
  onAdded,
  onStart,
}: {
  addon: Addon;
  pages: Surface[];
  onAdded: (host: string, surface: string) => void;
  onStart: () => void;
}) {
  const [host, setHost] = useState('');
  const [surface, setSurface] = useState(pages[0]?.name ?? '');
  const { mutation: add, sent } = useReplaceMapping((change) => {
    if (!('add' in change)) return;
    setHost('');
    onAdded(change.add.host, change.add.surface);
  });
  const { fields, others } = refusals(add.error, sent.current, sent.current.length - 1);
  // With one page there is no page field: a refusal of the page is said with the form's.
  const pageError = fields.surface ?? fields.appKey;
  if (pages.length <= 1 && pageError) others.unshift(pageError);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (add.isPending) return;
    onStart();
    // Sent as typed (trimmed): the server's rules decide, and its refusal is said on the field.
    const entry: Entry = { host: host.trim(), appKey: addon.key, surface: surface || (pages[0]?.name ?? '') };
    add.mutate({ add: entry });
  };
  return (
    <form onSubmit={onSubmit} noValidate className="addons-settings" aria-label={t('addOns.domains.formLabel', { name: addon.name })}>
      <h3>{t('addOns.domains.addTitle')}</h3>
      <Field
        label="addOns.domains.host"
        hint="addOns.domains.hostHint"
        name="host"
        type="text"
        autoComplete="off"
        spellCheck={false}
        maxLength={260}
        value={host}
        error={fields.host}
        onChange={(e) => setHost(e.target.value)}
      />
      {pages.length > 1 && (
        <SelectField
          label="addOns.domains.page"
          name="surface"
          value={surface}
          error={pageError}
          options={pages.map((p) => ({ value: p.name, label: p.title }))}
          onChange={(e) => setSurface(e.target.value)}
        />
      )}
      <FormError error={add.error} />
      {others.length > 0 && (
        <div className="form-error" role="alert">
          <p>{t('addOns.domains.othersRefused')}</p>
          <ul className="addons-names">
            {others.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
      <button type="submit" disabled={add.isPending}>
        <AddIcon className="icon" aria-hidden="true" />
        {add.isPending ? t('addOns.domains.adding') : t('addOns.domains.add')}
      </button>
    </form>
  );
}

function RemoveName({ host, title, onRemoved }: { host: string; title: string; onRemoved: () => void }) {
  const [asking, setAsking] = useState(false);
  const { mutation: remove, sent } = useReplaceMapping(() => {
    setAsking(false);
    onRemoved();
  });
  const { others } = refusals(remove.error, sent.current, null);
  return (
    <>
      <button type="button" className="secondary" onClick={() => (remove.reset(), setAsking(true))}>
        <DeleteIcon className="icon" aria-hidden="true" />
        {t('addOns.domains.remove', { host })}
      </button>
      {asking && (
        <ConfirmDialog
          title={t('addOns.domains.removeTitle', { host })}
          confirm={remove.isPending ? t('addOns.domains.removing') : t('addOns.domains.removeConfirm')}
          cancel={t('addOns.remove.cancel')}
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ remove: host })}
          onCancel={() => setAsking(false)}
        >
          <p>{t('addOns.domains.removeBody', { host, title })}</p>
          {remove.isError && (
            <div className="form-error" role="alert">
              <p>{errorText(remove.error)}</p>
              {others.length > 0 && (
                <ul className="addons-names">
                  {others.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
