import { Command } from 'cmdk';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useSearch } from '../api/search';
import { usePermissions, usePrefs, useSavePrefs, useSignOut } from '../areas/account/api';
import { t, type MessageId } from '../i18n/t';
import { restartLiveChannel } from '../live/events';
import { navigate } from '../navigation';
import { applyLook } from '../shell/prefs';
import { errorText } from '../ui';
import { isApple, paletteKeys, type Opened } from './CommandPalette';

/*
 * The palette's code, loaded on its first opening (CommandPalette.tsx): cmdk's list over
 * GET /search, and the commands the caller may use; the list of shortcuts beside it.
 */

type SearchType = 'page' | 'table' | 'connection' | 'user' | 'role' | 'addon' | 'setting' | 'row';
const GROUP_LABEL: Record<SearchType, MessageId> = {
  page: 'palette.group.page',
  table: 'palette.group.table',
  connection: 'palette.group.connection',
  user: 'palette.group.user',
  role: 'palette.group.role',
  addon: 'palette.group.addon',
  setting: 'palette.group.setting',
  row: 'palette.group.row',
};

/** Waits for typing to pause before asking the server. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** A modal on the native <dialog> (focus kept inside, Escape closes); the element marked data-autofocus takes the focus. */
function Modal({ label, className, onClose, children }: { label: string; className: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // showModal() focuses the dialog itself: the field (or the first button) takes it.
    dialog?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className={className}
      aria-label={label}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (e.target === ref.current) onClose();
      }}
    >
      {children}
    </dialog>
  );
}

interface PaletteCommand {
  id: string;
  label: MessageId;
  permission?: string;
  run: () => void | Promise<void>;
}

function Palette({ onShow, onClose }: { onShow: (what: Opened) => void; onClose: (navigated?: boolean) => void }) {
  const [q, setQ] = useState('');
  const settled = useDebounced(q, 200);
  const search = useSearch(settled);
  const permissions = usePermissions();
  const prefs = usePrefs();
  const savePrefs = useSavePrefs(applyLook);
  const signOut = useSignOut();
  const [failed, setFailed] = useState<unknown>(null);

  const go = (path: string) => {
    onClose(true);
    navigate(path);
  };
  const theme = prefs.data?.resolved.theme;
  const dark = theme === 'dark' || (theme !== 'light' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  const commands: PaletteCommand[] = [
    { id: 'new-connection', label: 'palette.cmd.newConnection', permission: 'connections.write', run: () => go('/connections/new') },
    { id: 'invite-user', label: 'palette.cmd.inviteUser', permission: 'users.write', run: () => inviteUser(go) },
    { id: 'new-page', label: 'palette.cmd.newPage', permission: 'pages.write', run: () => go('/pages/new') },
    {
      id: 'toggle-theme',
      label: dark ? 'palette.cmd.themeLight' : 'palette.cmd.themeDark',
      run: () => {
        savePrefs.mutate({ theme: dark ? 'light' : 'dark' });
        onClose();
      },
    },
    { id: 'shortcuts', label: 'palette.cmd.shortcuts', run: () => onShow('shortcuts') },
    {
      id: 'sign-out',
      label: 'palette.cmd.signOut',
      run: async () => {
        await signOut();
        restartLiveChannel();
        onClose(true);
        navigate('/sign-in', { replace: true });
      },
    },
  ];
  const needle = q.trim().toLowerCase();
  const shown = commands.filter((c) => (!c.permission || permissions?.has(c.permission)) && (!needle || t(c.label).toLowerCase().includes(needle)));
  const groups = needle && search.data ? search.data.groups : [];
  const searching = needle.length > 0 && (q !== settled || search.isFetching);

  const run = async (command: PaletteCommand) => {
    setFailed(null);
    try {
      await command.run();
    } catch (err) {
      setFailed(err);
    }
  };

  return (
    <Modal label={t('palette.label')} className="palette" onClose={() => onClose()}>
      <Command label={t('palette.label')} shouldFilter={false} loop>
        <Command.Input value={q} onValueChange={setQ} placeholder={t('palette.placeholder')} maxLength={200} data-autofocus />
        <Command.List>
          {searching && <Command.Loading label={t('palette.searching')}>{t('palette.searching')}</Command.Loading>}
          {!searching && needle && <Command.Empty>{t('palette.empty')}</Command.Empty>}
          {groups.map((group) => (
            <Command.Group key={group.type} heading={t(GROUP_LABEL[group.type])}>
              {group.items.map((item) => (
                <Command.Item key={item.id} value={`${group.type}:${item.id}`} onSelect={() => go(item.url)}>
                  <span className="palette-title">{item.title}</span>
                  {item.subtitle && <span className="palette-subtitle">{item.subtitle}</span>}
                </Command.Item>
              ))}
            </Command.Group>
          ))}
          {shown.length > 0 && (
            <Command.Group heading={t('palette.commands')}>
              {shown.map((command) => (
                <Command.Item key={command.id} value={`command:${command.id}`} onSelect={() => void run(command)}>
                  <span className="palette-title">{t(command.label)}</span>
                </Command.Item>
              ))}
            </Command.Group>
          )}
        </Command.List>
      </Command>
      {search.data?.partial && needle && <p className="hint palette-note">{t('palette.partial')}</p>}
      {search.isError && needle && (
        <p className="field-error palette-note" role="alert">
          {t('palette.failed', { reason: errorText(search.error) })}
        </p>
      )}
      {failed !== null && (
        <p className="field-error palette-note" role="alert">
          {t('palette.cmd.failed', { reason: errorText(failed) })}
        </p>
      )}
    </Modal>
  );
}

/** To the users' screen, its invitation form in view with the focus in it. */
function inviteUser(go: (path: string) => void): void {
  go('/users');
  const started = Date.now();
  const find = () => {
    const field = document.querySelector<HTMLInputElement>('[aria-labelledby="invite-title"] input[name="email"]');
    if (field) {
      field.scrollIntoView({ block: 'center' });
      field.focus();
    } else if (Date.now() - started < 10_000) requestAnimationFrame(find);
  };
  requestAnimationFrame(find);
}

/** The keyboard shortcuts the dashboard answers to (`?`). */
function Shortcuts({ onClose }: { onClose: () => void }) {
  const id = useId();
  const rows: [string, MessageId][] = [
    [paletteKeys(), 'shortcuts.palette'],
    ['?', 'shortcuts.help'],
    ['↑ ↓', 'shortcuts.move'],
    ['Enter', 'shortcuts.enter'],
    ['Esc', 'shortcuts.escape'],
  ];
  return (
    <Modal label={t('shortcuts.title')} className="shortcuts confirm-dialog" onClose={onClose}>
      <h2 id={id}>{t('shortcuts.title')}</h2>
      <dl className="shortcuts-list" aria-labelledby={id}>
        {rows.map(([keys, label]) => (
          <div key={label}>
            <dt>
              {keys.split(' ').map((k) => (
                <kbd key={k}>{k === 'Ctrl' && isApple() ? '⌘' : k}</kbd>
              ))}
            </dt>
            <dd>{t(label)}</dd>
          </div>
        ))}
      </dl>
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose} data-autofocus>
          {t('shortcuts.close')}
        </button>
      </div>
    </Modal>
  );
}

export default function Dialogs({ opened, onShow, onClose }: { opened: Opened; onShow: (what: Opened) => void; onClose: (navigated?: boolean) => void }) {
  return opened === 'palette' ? <Palette onShow={onShow} onClose={onClose} /> : <Shortcuts onClose={() => onClose()} />;
}
