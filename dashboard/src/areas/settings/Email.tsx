import { useState } from 'react';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Field, Loading, SelectField } from '../../ui';
import { isDenied, LoadError, SaveError, Saved, SettingsScreen, useSettingsSubmit } from './common';
import { useEmailSettings, useSaveEmail, type EmailView, type SmtpInput } from './api';

const SECURITY: ReadonlyArray<{ value: SmtpInput['security']; label: MessageId }> = [
  { value: 'starttls', label: 'settings.email.securityStarttls' },
  { value: 'tls', label: 'settings.email.securityTls' },
  { value: 'none', label: 'settings.email.securityNone' },
];

/** /settings/email: the SMTP server; the stored password is never shown, only kept, replaced or removed. */
export function Email() {
  const query = useEmailSettings();
  return (
    <SettingsScreen title="settings.email.title">
      <p>{t('settings.email.intro')}</p>
      {query.isPending ? <Loading /> : query.isError ? <LoadError error={query.error} onRetry={() => void query.refetch()} /> : <EmailForm view={query.data} />}
    </SettingsScreen>
  );
}

function EmailForm({ view }: { view: EmailView }) {
  const [turnedOff, setTurnedOff] = useState(false);
  const save = useSaveEmail();
  const form = useSettingsSubmit(async (v) => {
    setTurnedOff(false);
    const port = /^\d+$/.test(v.port ?? '') ? Number(v.port) : v.port;
    const smtp = {
      host: v.host ?? '',
      port,
      security: v.security,
      user: v.user ? v.user : null,
      ...(v.clearPassword ? { password: null } : v.password ? { password: v.password } : {}),
      from: v.from ?? '',
      replyTo: v.replyTo ? v.replyTo : null,
    } as SmtpInput; // a port that is not a number goes as typed: the server's message names the field
    await save.mutateAsync(smtp);
  });
  const turnOff = useSaveEmail({ onSuccess: () => setTurnedOff(true) });
  const f = (name: string) => form.fields[`smtp.${name}`];
  const smtp = view.smtp;

  return (
    <>
      <p role="status">{view.configured ? t('settings.email.on') : t('settings.email.off')}</p>
      <form className="settings-form" onSubmit={(e) => void form.onSubmit(e)} noValidate key={view.configured ? 'on' : 'off'}>
        <SaveError error={form.error} />
        <Field label="settings.email.host" name="host" defaultValue={smtp?.host ?? ''} error={f('host')} autoComplete="off" />
        <Field label="settings.email.port" name="port" inputMode="numeric" defaultValue={String(smtp?.port ?? 587)} error={f('port')} />
        <SelectField
          label="settings.email.security"
          name="security"
          options={SECURITY.map((s) => ({ value: s.value, label: t(s.label) }))}
          defaultValue={smtp?.security ?? 'starttls'}
          error={f('security')}
        />
        <Field label="settings.email.user" name="user" hint="settings.email.userHint" defaultValue={smtp?.user ?? ''} error={f('user')} autoComplete="off" />
        <Field
          label="settings.email.password"
          name="password"
          type="password"
          hint={smtp?.passwordSet ? 'settings.email.passwordKept' : 'settings.email.passwordNone'}
          error={f('password')}
          autoComplete="new-password"
        />
        {smtp?.passwordSet && (
          <div className="field checks">
            <label>
              <input type="checkbox" name="clearPassword" />
              {t('settings.email.clearPassword')}
            </label>
          </div>
        )}
        <Field label="settings.email.from" name="from" hint="settings.email.fromHint" defaultValue={smtp?.from ?? ''} error={f('from')} />
        <Field label="settings.email.replyTo" name="replyTo" hint="settings.email.replyToHint" defaultValue={smtp?.replyTo ?? ''} error={f('replyTo')} />
        <div className="actions">
          <button type="submit" disabled={form.pending}>
            {form.pending ? t('settings.saving') : t('settings.email.save')}
          </button>
          {view.configured && (
            <button type="button" className="secondary" disabled={turnOff.isPending} onClick={() => turnOff.mutate(null)}>
              {t('settings.email.turnOff')}
            </button>
          )}
        </div>
      </form>
      <Saved show={form.saved} />
      <Saved show={turnedOff} text="settings.email.turnedOff" />
      {turnOff.isError && (
        <div className="form-error" role="alert">
          <p>{isDenied(turnOff.error) ? t('settings.deniedWrite') : errorText(turnOff.error)}</p>
        </div>
      )}
      <p className="hint settings-note">{t('settings.email.noTestSend')}</p>
    </>
  );
}
