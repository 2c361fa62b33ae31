import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import type { ErrorIssue } from '../../api/types';
import { t, type MessageId } from '../../i18n/t';
import { Field, FormError } from '../../ui';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { useReplaceInstances, useSurfaces, type Addon, type Instance, type InstanceEntry, type Surface } from './api';
import { initialValues, SettingsEditor, SettingsFields, settingErrors, toSettingsInput, useClearSet, type Values } from './SettingsForm';
import { SurfacesSection, type Said } from './SurfacesSection';
import { useManagesAddOns } from './surfaces';
import { SecretOnce } from '../../ui/SecretOnce';
import { AddIcon, DeleteIcon, EditIcon } from '../../ui/icons';

/** The server's issue codes for an id in words (AO18); a code the dashboard does not know is shown as the server said it. */
const ISSUE_WORDS: Record<string, MessageId> = {
  reserved: 'addOns.instances.issue.reserved',
  duplicate: 'addOns.instances.issue.duplicate',
  invalid_format: 'addOns.instances.issue.idInvalid',
  too_small: 'addOns.instances.issue.idInvalid',
  too_big: 'addOns.instances.issue.idInvalid',
};
const words = (issue: ErrorIssue) => (ISSUE_WORDS[issue.code] ? t(ISSUE_WORDS[issue.code]!) : issue.message);
const ISSUE_AT = /^body\.instances\.(\d+)\.(id|name)$/;

/** The id a venue's name suggests: its words in kebab-case (`Harbour Café` → `harbour-caf`), at most 40 characters. */
export function suggestId(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** A refusal of the entry at `index`: its id and name errors by field, its settings errors by setting. */
function refusals(error: unknown, index: number): { fields: Record<string, string>; settings: Record<string, string> } {
  const fields: Record<string, string> = {};
  if (error instanceof ApiError)
    for (const issue of error.issues) {
      const at = ISSUE_AT.exec(issue.path);
      if (at && Number(at[1]) === index) fields[at[2]!] ??= words(issue);
    }
  return { fields, settings: settingErrors(error, `instances.${index}.settings.`) };
}

/** 409 ADDON_INSTANCE_NOT_EMPTY in words: the venue, how many rows and in which table (the app's name for it, without the app's prefix). */
function notEmptyText(error: unknown, name: string): string | null {
  if (!(error instanceof ApiError) || error.code !== 'ADDON_INSTANCE_NOT_EMPTY') return null;
  const table = String(error.params['table'] ?? '').replace(/^.*?__/, '');
  return t('addOns.instances.notEmpty', { name, rows: Number(error.params['rows'] ?? 0), table });
}

/**
 * The app's venues (D28, AO18): each named instance with its id and key prefix and, for each
 * public page, a link to the page carrying its key; a person who may manage add-ons adds a
 * venue (its new key's secret shown once), edits a venue's settings or removes one (confirmed).
 */
export function InstancesSection({ addon }: { addon: Addon }) {
  const hasKey = addon.endpoints.length > 0;
  const surfaces = useSurfaces(hasKey);
  const manages = useManagesAddOns();
  const [said, setSaid] = useState<Said>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  if (!hasKey) return null;
  const mine = (surfaces.data ?? []).filter((s) => s.appKey === addon.key);
  const instances = mine[0]?.instances ?? [];
  const pages = mine.filter((s) => s.kind === 'public-page');
  return (
    <SurfacesSection
      id="addon-instances"
      title={t('addOns.instances.title')}
      hint={t('addOns.instances.help')}
      surfaces={surfaces}
      said={said}
      list={
        instances.length === 0 ? (
          <p>{t('addOns.instances.none')}</p>
        ) : (
          <ul className="addons-instances" data-testid="instances" aria-label={t('addOns.instances.listLabel', { name: addon.name })}>
            {instances.map((i, index) => (
              <InstanceRow
                index={index}
                key={i.id}
                addon={addon}
                instance={i}
                pages={pages}
                manages={manages}
                onRemoved={() => setSaid({ text: t('addOns.instances.removed', { name: i.name }), focus: true })}
              />
            ))}
          </ul>
        )
      }
    >
      {secret && (
        <SecretOnce
          title={t('addOns.instances.secretTitle', { name: secret.name })}
          label={t('addOns.instances.secretLabel', { name: secret.name })}
          secret={secret.secret}
          note={
            <>
              {t('addOns.instances.secretAgain')} <Link href="/public-api/keys">{t('addOns.instances.keysLink')}</Link>
            </>
          }
          hide={t('addOns.instances.secretHide')}
          testId="instance-key-secret"
          onDone={() => setSecret(null)}
        />
      )}
      {manages && (
        <AddInstance
          addon={addon}
          onStart={() => (setSaid(null), setSecret(null))}
          onAdded={(name, created) => {
            setSaid({ text: t('addOns.instances.added', { name }), focus: false });
            if (created) setSecret({ name, secret: created });
          }}
        />
      )}
    </SurfacesSection>
  );
}

function InstanceRow({
  addon,
  instance,
  index,
  pages,
  manages,
  onRemoved,
}: {
  addon: Addon;
  instance: Instance;
  index: number;
  pages: Surface[];
  manages: boolean;
  onRemoved: () => void;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <li data-testid={`instance-${instance.id}`}>
      <div className="addons-instance">
        <strong>{instance.name}</strong>
        <span>{t('addOns.instances.id', { id: instance.id })}</span>
        {instance.keyPrefix && (
          <span>
            {t('addOns.instances.keyPrefix')} <code>{instance.keyPrefix}</code>
          </span>
        )}
        {pages.map((p) => (
          <a key={p.name} href={`${p.url}?instance=${encodeURIComponent(instance.id)}`} target="_blank" rel="noopener noreferrer">
            {t('addOns.instances.openPage', { title: p.title, name: instance.name })}
          </a>
        ))}
        {manages && addon.settingsSchema.length > 0 && (
          <button type="button" className="secondary" aria-expanded={editing} onClick={() => setEditing((e) => !e)}>
            <EditIcon className="icon" aria-hidden="true" />
            {t('addOns.instances.editSettings', { name: instance.name })}
          </button>
        )}
        {manages && <RemoveInstance addon={addon} instance={instance} onRemoved={onRemoved} />}
      </div>
      {editing && <EditSettings addon={addon} instance={instance} index={index} />}
    </li>
  );
}

/** `index` is the venue's place in the list (the list is sent back in the server's order): its refusals are there. */
function EditSettings({ addon, instance, index }: { addon: Addon; instance: Instance; index: number }) {
  const { mutation: edit } = useReplaceInstances(addon.key);
  return (
    <SettingsEditor
      fields={addon.settingsSchema}
      state={instance}
      label={t('addOns.instances.settingsLabel', { name: instance.name })}
      errorPrefix={`instances.${index}.settings.`}
      save={async (settings) => {
        const after = await edit.mutateAsync({ edit: instance.id, settings });
        return after.instances.find((i) => i.id === instance.id) ?? instance;
      }}
    />
  );
}

function AddInstance({ addon, onAdded, onStart }: { addon: Addon; onAdded: (name: string, secret: string | null) => void; onStart: () => void }) {
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  // Until the id is typed in, it follows the name.
  const [idTyped, setIdTyped] = useState(false);
  const [withSettings, setWithSettings] = useState(false);
  const fields = addon.settingsSchema;
  const start = (): Values => initialValues(fields, addon.settings);
  const [values, setValues] = useState<Values>(start);
  const [clear, toggleClear, resetClear] = useClearSet();
  const { mutation: add, sent } = useReplaceInstances(addon.key, (change, after) => {
    if (!('add' in change)) return;
    setName('');
    setId('');
    setIdTyped(false);
    setWithSettings(false);
    setValues(start());
    resetClear();
    onAdded(change.add.name, after.created.find((c) => c.instance === change.add.id)?.secret ?? null);
  });
  const { fields: errors, settings: settingsErrors } = refusals(add.error, sent.current.length - 1);
  const settingsId = useId();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (add.isPending) return;
    onStart();
    // A new venue starts from the app's settings: only those changed here are sent.
    const settings = withSettings ? toSettingsInput(fields, values, clear, start()) : {};
    const entry: InstanceEntry = { id: id.trim(), name: name.trim(), ...(Object.keys(settings).length ? { settings } : {}) };
    add.mutate({ add: entry });
  };
  return (
    <form onSubmit={onSubmit} noValidate className="addons-settings" aria-label={t('addOns.instances.formLabel', { name: addon.name })}>
      <h3>{t('addOns.instances.addTitle')}</h3>
      <Field
        label="addOns.instances.name"
        name="instance-name"
        type="text"
        autoComplete="off"
        maxLength={120}
        value={name}
        error={errors.name}
        onChange={(e) => {
          setName(e.target.value);
          if (!idTyped) setId(suggestId(e.target.value));
        }}
      />
      <Field
        label="addOns.instances.idLabel"
        hint="addOns.instances.idHint"
        name="instance-id"
        type="text"
        autoComplete="off"
        spellCheck={false}
        maxLength={40}
        value={id}
        error={errors.id}
        onChange={(e) => {
          setId(e.target.value);
          setIdTyped(e.target.value !== '');
        }}
      />
      {fields.length > 0 && (
        <div className="field addons-check">
          <input id={settingsId} type="checkbox" checked={withSettings} onChange={(e) => setWithSettings(e.target.checked)} />
          <label htmlFor={settingsId}>{t('addOns.instances.ownSettings')}</label>
        </div>
      )}
      {withSettings && (
        <fieldset className="addons-instance-settings">
          <legend>{t('addOns.instances.settingsLegend')}</legend>
          <SettingsFields
            fields={fields}
            values={values}
            secretsSet={[]}
            clear={clear}
            errors={settingsErrors}
            onChange={(n, v) => setValues((old) => ({ ...old, [n]: v }))}
            onClear={toggleClear}
          />
        </fieldset>
      )}
      <FormError error={add.error} />
      <button type="submit" disabled={add.isPending}>
        <AddIcon className="icon" aria-hidden="true" />
        {add.isPending ? t('addOns.instances.adding') : t('addOns.instances.add')}
      </button>
    </form>
  );
}

function RemoveInstance({ addon, instance, onRemoved }: { addon: Addon; instance: Instance; onRemoved: () => void }) {
  const [asking, setAsking] = useState(false);
  const { mutation: remove } = useReplaceInstances(addon.key, () => {
    setAsking(false);
    onRemoved();
  });
  const notEmpty = notEmptyText(remove.error, instance.name);
  return (
    <>
      <button type="button" className="secondary" onClick={() => (remove.reset(), setAsking(true))}>
        <DeleteIcon className="icon" aria-hidden="true" />
        {t('addOns.instances.remove', { name: instance.name })}
      </button>
      {notEmpty && !asking && (
        <p className="field-error" role="alert" data-testid="instance-not-empty">
          {notEmpty}
        </p>
      )}
      {asking && (
        <ConfirmDialog
          title={t('addOns.instances.removeTitle', { name: instance.name })}
          confirm={remove.isPending ? t('addOns.instances.removing') : t('addOns.instances.removeConfirm')}
          cancel={t('addOns.remove.cancel')}
          pending={remove.isPending}
          onConfirm={() =>
            remove.mutate(
              { remove: instance.id },
              // A venue that still has rows stays: the dialog closes and the refusal is said on its row.
              { onError: (error) => notEmptyText(error, instance.name) && setAsking(false) },
            )
          }
          onCancel={() => setAsking(false)}
        >
          <p>{t('addOns.instances.removeBody', { name: instance.name, id: instance.id })}</p>
          <FormError error={notEmpty ? null : remove.error} />
        </ConfirmDialog>
      )}
    </>
  );
}
