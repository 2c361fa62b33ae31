import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { t } from '../i18n/t';

/**
 * A secret shown once after it is made (a key, a rotated secret): focused on arrival so a
 * screen reader reads it, selectable, with a copy button whose outcome is announced. `note`
 * says whether it can be seen again, and where.
 */
export function SecretOnce({
  title,
  label,
  secret,
  note,
  hide,
  testId,
  onDone,
}: {
  title: string;
  label: string;
  secret: string;
  note: ReactNode;
  hide: string;
  testId: string;
  onDone: () => void;
}) {
  const id = useId();
  const ref = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    ref.current?.focus();
    setCopied(null);
  }, [secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section className="secret-once" aria-labelledby={`${id}-title`} ref={ref} tabIndex={-1}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input id={id} readOnly value={secret} className="secret-once-value" onFocus={(e) => e.currentTarget.select()} data-testid={testId} />
      </div>
      <p className="secret-once-note">{note}</p>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          {t('secret.copy')}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          {hide}
        </button>
      </div>
      <p role="status" className="notice">
        {copied === 'yes' ? t('secret.copied') : copied === 'failed' ? t('secret.copyFailed') : ''}
      </p>
    </section>
  );
}
