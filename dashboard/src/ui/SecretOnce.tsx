import { useEffect, useId, useRef, type ReactNode } from 'react';
import { t } from '../i18n/t';
import { useCopy } from './useCopy';

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
  const { copy, outcome, reset } = useCopy();
  useEffect(() => {
    ref.current?.focus();
    reset();
    // A new secret starts without an outcome.
  }, [secret]);
  return (
    <section className="secret-once" aria-labelledby={`${id}-title`} ref={ref} tabIndex={-1}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input id={id} readOnly value={secret} className="secret-once-value" onFocus={(e) => e.currentTarget.select()} data-testid={testId} />
      </div>
      <p className="secret-once-note">{note}</p>
      <div className="actions">
        <button type="button" onClick={() => void copy(secret)}>
          {t('secret.copy')}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          {hide}
        </button>
      </div>
      <p role="status" className="notice">
        {outcome}
      </p>
    </section>
  );
}
