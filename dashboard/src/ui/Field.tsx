import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { t, type MessageId } from '../i18n/t';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: MessageId;
  name: string;
  hint?: MessageId;
  error?: string;
  focusOnMount?: boolean;
}

interface FieldFrameProps {
  label: MessageId;
  hint?: MessageId;
  error?: string;
  /** The control, given its id and the ids that describe it (hint, error). */
  children: (id: string, describedBy: string | undefined) => ReactNode;
}

/** A label, an optional hint, the control, and the server's message for it, tied together with aria-describedby. */
export function FieldFrame({ label, hint, error, children }: FieldFrameProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{t(label)}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {t(hint)}
        </p>
      )}
      {children(id, described || undefined)}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled input; the server's message for it is tied to it with aria-describedby. */
export function Field({ label, name, hint, error, focusOnMount, ...input }: FieldProps) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusOnMount) ref.current?.focus();
  }, [focusOnMount]);
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {(id, describedBy) => <input ref={ref} id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />}
    </FieldFrame>
  );
}

interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: MessageId;
  name: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  error?: string;
  hint?: MessageId;
}

/** A labelled select, like Field. */
export function SelectField({ label, name, options, error, hint, ...select }: SelectFieldProps) {
  return (
    <FieldFrame label={label} hint={hint} error={error}>
      {(id, describedBy) => (
        <select id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...select}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}
