import * as Toast from '@radix-ui/react-toast';
import { t } from '../i18n/t';
import { CloseIcon, SuccessIcon, WarningIcon, InfoIcon } from './icons';
import { dismissToast, useToasts } from './toast-store';
import './primitives.css';

const TONE_ICON = { info: InfoIcon, success: SuccessIcon, danger: WarningIcon } as const;

/**
 * Where toast() messages appear (Radix Toast, decision DB55): a labelled region (F8 reaches it),
 * each message read out politely (a failure assertively), gone after a few seconds unless the
 * pointer or the focus is on it, closed by its button or a swipe.
 */
export function Toaster() {
  const messages = useToasts();
  return (
    <Toast.Provider label={t('toast.region')} duration={6000}>
      {messages.map((m) => {
        const Icon = TONE_ICON[m.tone];
        return (
          <Toast.Root
            key={m.id}
            className={`toast toast-${m.tone}`}
            type={m.tone === 'danger' ? 'foreground' : 'background'}
            onOpenChange={(open) => {
              if (!open) dismissToast(m.id);
            }}
          >
            <Icon className="icon toast-icon" aria-hidden="true" />
            <div className="toast-text">
              <Toast.Title className="toast-title">{m.title}</Toast.Title>
              {m.description && <Toast.Description className="toast-description">{m.description}</Toast.Description>}
            </div>
            <Toast.Close className="ghost icon-button" aria-label={t('toast.close')}>
              <CloseIcon className="icon" aria-hidden="true" />
            </Toast.Close>
          </Toast.Root>
        );
      })}
      <Toast.Viewport className="toast-viewport" label={`${t('toast.region')} ({hotkey})`} />
    </Toast.Provider>
  );
}
