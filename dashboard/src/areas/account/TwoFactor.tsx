import { useState } from 'react';
import { t } from '../../i18n/t';
import { useActivateTwoFactor, useDisableTwoFactor, useEnrolTwoFactor, useMe, useRefreshMe } from './api';
import { QrCode } from './QrCode';
import { Field, FormError, Loading, useSubmit, useTitle } from '../../ui';
import { useCopy } from '../../ui/useCopy';
import { PageHeader } from '../../ui/PageHeader';
import { CheckIcon, CopyIcon, DisableIcon, ExportIcon, TwoFactorIcon } from '../../ui/icons';

interface Enrolment {
  secret: string;
  otpauthUrl: string;
}

/** The key in groups of four, as authenticator apps show and people type it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * Turn two-step verification on (enrol, prove a code, save the recovery codes) or off.
 */
export function TwoFactor() {
  useTitle('security.title');
  const me = useMe();
  const refreshMe = useRefreshMe();
  const enrol = useEnrolTwoFactor();
  const activateIt = useActivateTwoFactor();
  const disableIt = useDisableTwoFactor();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);

  const start = useSubmit(async () => {
    setEnrolment(await enrol.mutateAsync());
  });
  const activate = useSubmit(async ({ code = '' }) => {
    const data = await activateIt.mutateAsync(code.trim());
    setEnrolment(null);
    setCodes(data.recoveryCodes);
  });
  const disable = useSubmit(async ({ password = '' }) => {
    await disableIt.mutateAsync(password);
  });

  if (!me.data) return <Loading />;

  if (codes) {
    return (
      <>
        <PageHeader title={t('security.codesTitle')} description={t('security.codesIntro')} />
        <ul className="codes" data-testid="recovery-codes">
          {codes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <RecoveryCodesActions codes={codes} />
        <button
          type="button"
          onClick={() => {
            setCodes(null);
            void refreshMe();
          }}
        >
          {t('security.done')}
        </button>
      </>
    );
  }

  return (
    <>
      <PageHeader title={t('security.title')} />
      <div className="card security-card">
        {me.data.totpEnabled ? (
          <>
            <p>{t('security.on')}</p>
            <p>{t('security.disableIntro')}</p>
            <form onSubmit={disable.onSubmit} noValidate>
              <FormError error={disable.error} />
              <Field label="field.password" name="password" type="password" autoComplete="current-password" required error={disable.fields.password} />
              <button type="submit" className="danger" disabled={disable.pending}>
                <DisableIcon className="icon" aria-hidden="true" />
                {disable.pending ? t('security.disabling') : t('security.disable')}
              </button>
            </form>
          </>
        ) : enrolment ? (
          <>
            <p>{t('security.scan')}</p>
            <QrCode value={enrolment.otpauthUrl} label="security.qrLabel" />
            <p>
              <a href={enrolment.otpauthUrl}>{t('security.openApp')}</a>
            </p>
            <p>
              {t('security.key')} <code data-testid="totp-secret">{grouped(enrolment.secret)}</code>
            </p>
            <p>{t('security.confirm')}</p>
            <form onSubmit={activate.onSubmit} noValidate>
              <FormError error={activate.error} />
              <Field
                label="field.code"
                name="code"
                type="text"
                inputMode="numeric"
                autoComplete="one-time-code"
                required
                focusOnMount
                error={activate.fields.code}
              />
              <button type="submit" disabled={activate.pending}>
                <CheckIcon className="icon" aria-hidden="true" />
                {activate.pending ? t('security.activating') : t('security.activate')}
              </button>
            </form>
          </>
        ) : (
          <>
            <p>{t('security.off')}</p>
            <form onSubmit={start.onSubmit}>
              <FormError error={start.error} />
              <button type="submit" disabled={start.pending}>
                <TwoFactorIcon className="icon" aria-hidden="true" />
                {start.pending ? t('security.starting') : t('security.start')}
              </button>
            </form>
          </>
        )}
      </div>
    </>
  );
}

/** The codes as a text file: one a line, under a line saying what they are for. */
function codesFile(codes: readonly string[]): string {
  return `${t('security.codesFileHeading', { host: window.location.host })}\n\n${codes.join('\n')}\n`;
}

/** Saves text as a file the way a download link does (a Blob: nothing leaves the browser). */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Copy the codes, or save them as a .txt file. */
function RecoveryCodesActions({ codes }: { codes: readonly string[] }) {
  const { copy, outcome } = useCopy();
  return (
    <>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => void copy(codes.join('\n'))}>
          <CopyIcon className="icon" aria-hidden="true" />
          {t('security.codesCopy')}
        </button>
        <button type="button" className="secondary" onClick={() => download('recovery-codes.txt', codesFile(codes))}>
          <ExportIcon className="icon" aria-hidden="true" />
          {t('security.codesDownload')}
        </button>
      </div>
      <p role="status" className="notice">
        {outcome}
      </p>
    </>
  );
}
