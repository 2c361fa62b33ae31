import { useRef, useState, type FormEvent } from 'react';
import { useBranding, type Branding as BrandingView } from '../../api/bootstrap';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { contrastWithWhite, HEX_COLOR, MIN_CONTRAST } from '../../shared/contrast';
import { logoSrc } from '../../shell/branding';
import { errorText, Field, FieldFrame, Loading } from '../../ui';
import { DeleteIcon, ImportIcon, InfoIcon, SuccessIcon, WarningIcon } from '../../ui/icons';
import { usePermissions } from '../account/api';
import { ColourChip, SaveError, Saved, SettingsScreen, useSettingsSubmit } from './common';
import { useRemoveLogo, useSaveBranding, useUploadLogo } from './api';

export const BRANDING_WRITE = 'branding.write';

/**
 * /settings/branding: product name, primary colour (the contrast rule checked as it is typed,
 * the server's own function, BR10), sign-in message, and the logo. Without `branding.write`
 * (admins only, BR1) the same facts are shown read-only.
 */
export function Branding() {
  const branding = useBranding();
  const canWrite = usePermissions()?.has(BRANDING_WRITE) ?? false;
  return (
    <SettingsScreen title="settings.branding.title" description="settings.branding.intro">
      {!branding ? <Loading /> : canWrite ? <BrandingEditor branding={branding} /> : <BrandingReadOnly branding={branding} />}
    </SettingsScreen>
  );
}

function BrandingReadOnly({ branding }: { branding: BrandingView }) {
  return (
    <>
      <p className="settings-info">
        <InfoIcon className="icon" aria-hidden="true" />
        {t('settings.branding.readOnly')}
      </p>
      <div className="card settings-panel">
        <dl className="settings-facts">
          <dt>{t('settings.branding.productName')}</dt>
          <dd>{branding.productName}</dd>
          <dt>{t('settings.branding.primary')}</dt>
          <dd>{branding.colors.primary ? <ColourChip color={branding.colors.primary} /> : t('settings.overview.builtInColour')}</dd>
          <dt>{t('settings.branding.logoTitle')}</dt>
          <dd>
            {branding.logo ? (
              <img className="branding-logo-preview" src={logoSrc(branding.logo)} alt={t('settings.branding.logoAlt')} />
            ) : (
              t('settings.overview.none')
            )}
          </dd>
          <dt>{t('settings.branding.signInMessage')}</dt>
          <dd className="branding-message">{branding.signInMessage ?? t('settings.overview.none')}</dd>
        </dl>
      </div>
    </>
  );
}

function BrandingEditor({ branding }: { branding: BrandingView }) {
  return (
    <div className="branding-editor">
      <DetailsForm branding={branding} />
      <LogoSection branding={branding} />
    </div>
  );
}

function DetailsForm({ branding }: { branding: BrandingView }) {
  const save = useSaveBranding();
  const [color, setColor] = useState(branding.colors.primary ?? '');
  const form = useSettingsSubmit(async (v) => {
    const primary = (v.primary ?? '').trim();
    const message = v.signInMessage ?? '';
    await save.mutateAsync({
      productName: v.productName ?? '',
      colors: { primary: primary === '' ? null : primary },
      signInMessage: message.trim() === '' ? null : message,
    });
  });
  return (
    <section className="card settings-panel" aria-labelledby="branding-details">
      <h2 id="branding-details">{t('settings.branding.detailsTitle')}</h2>
      <form className="settings-form" onSubmit={(e) => void form.onSubmit(e)} noValidate>
        <SaveError error={form.error} />
        <Field
          label="settings.branding.productName"
          name="productName"
          hint="settings.branding.productNameHint"
          defaultValue={branding.productName}
          maxLength={60}
          error={form.fields.productName}
          autoComplete="off"
        />
        <div className="colour-field">
          <Field
            label="settings.branding.primary"
            name="primary"
            hint="settings.branding.primaryHint"
            value={color}
            onChange={(e) => setColor(e.target.value)}
            error={form.fields['colors.primary'] ?? form.fields.colors}
            autoComplete="off"
            spellCheck={false}
          />
          <input
            type="color"
            className="colour-picker"
            aria-label={t('settings.branding.pick')}
            value={HEX_COLOR.test(color) ? color.toLowerCase() : '#1f5fbf'}
            onChange={(e) => setColor(e.target.value)}
          />
        </div>
        <ContrastCheck color={color.trim()} />
        <FieldFrame label="settings.branding.signInMessage" hint="settings.branding.signInMessageHint" error={form.fields.signInMessage}>
          {(id, describedBy) => (
            <textarea
              id={id}
              name="signInMessage"
              rows={3}
              maxLength={500}
              defaultValue={branding.signInMessage ?? ''}
              aria-describedby={describedBy}
              aria-invalid={form.fields.signInMessage ? true : undefined}
            />
          )}
        </FieldFrame>
        <button type="submit" disabled={form.pending}>
          {form.pending ? t('settings.saving') : t('settings.branding.save')}
        </button>
        <Saved show={form.saved} />
      </form>
    </section>
  );
}

/** The contrast of white text on the colour as it is typed: the rule the server applies on save (BR1, BR10). */
function ContrastCheck({ color }: { color: string }) {
  let body;
  if (color === '') body = <p className="contrast-check">{t('settings.branding.colorBuiltIn')}</p>;
  else if (!HEX_COLOR.test(color))
    body = (
      <p className="contrast-check contrast-bad">
        <WarningIcon className="icon" aria-hidden="true" />
        {t('settings.branding.colorInvalid')}
      </p>
    );
  else {
    const ratio = contrastWithWhite(color);
    const passes = ratio >= MIN_CONTRAST;
    const values = { color, ratio: ratio.toFixed(2), min: String(MIN_CONTRAST) };
    body = (
      <div className={`contrast-check ${passes ? 'contrast-good' : 'contrast-bad'}`}>
        <span className="contrast-sample" style={{ background: color }} aria-hidden="true">
          {t('settings.branding.sample')}
        </span>
        <p>
          {passes ? <SuccessIcon className="icon" aria-hidden="true" /> : <WarningIcon className="icon" aria-hidden="true" />}
          {t(passes ? 'settings.branding.contrastOk' : 'settings.branding.contrastLow', values)}
        </p>
      </div>
    );
  }
  return (
    <div aria-live="polite" data-testid="contrast-check">
      {body}
    </div>
  );
}

const LOGO_REFUSALS: Record<string, MessageId> = {
  format: 'settings.branding.refused.format',
  dimensions: 'settings.branding.refused.dimensions',
  'svg-unsafe': 'settings.branding.refused.svgUnsafe',
};

/** A refused logo in words: why, by the server's `params.reason` (BR2), or its size (413). */
function logoRefusal(error: unknown): string {
  if (error instanceof ApiError) {
    const reason = typeof error.params.reason === 'string' ? LOGO_REFUSALS[error.params.reason] : undefined;
    if (error.code === 'BRANDING_LOGO_INVALID' && reason) return t(reason);
    if (error.status === 413) return t('settings.branding.refused.tooLarge');
  }
  return errorText(error);
}

function LogoSection({ branding }: { branding: BrandingView }) {
  const upload = useUploadLogo();
  const remove = useRemoveLogo();
  const file = useRef<HTMLInputElement>(null);
  const [done, setDone] = useState<MessageId | null>(null);
  const [missing, setMissing] = useState(false);
  const logo = branding.logo;
  const onUpload = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(null);
    remove.reset();
    const chosen = file.current?.files?.[0];
    setMissing(!chosen);
    if (!chosen) return;
    try {
      await upload.mutateAsync(chosen);
      setDone('settings.branding.uploaded');
      if (file.current) file.current.value = '';
    } catch {
      // Shown below, in words.
    }
  };
  const onRemove = async () => {
    setDone(null);
    upload.reset();
    try {
      await remove.mutateAsync();
      setDone('settings.branding.removed');
    } catch {
      // Shown below.
    }
  };
  const error = upload.error ?? remove.error;
  return (
    <section className="card settings-panel" aria-labelledby="branding-logo">
      <h2 id="branding-logo">{t('settings.branding.logoTitle')}</h2>
      <p className="hint">{t('settings.branding.logoIntro')}</p>
      <div className="logo-preview">
        {logo ? (
          <img className="branding-logo-preview" src={logoSrc(logo)} alt={t('settings.branding.logoAlt')} />
        ) : (
          <p className="hint">{t('settings.branding.logoNone')}</p>
        )}
      </div>
      <form className="settings-form" onSubmit={(e) => void onUpload(e)} noValidate>
        {(error || missing) && (
          <div className="form-error" role="alert">
            <p>{missing ? t('settings.branding.chooseFile') : logoRefusal(error)}</p>
          </div>
        )}
        <FieldFrame label="settings.branding.logoFile">
          {(id, describedBy) => (
            <input id={id} ref={file} type="file" name="logo" accept="image/png,image/jpeg,image/webp,image/svg+xml" aria-describedby={describedBy} />
          )}
        </FieldFrame>
        <div className="actions">
          <button type="submit" disabled={upload.isPending}>
            <ImportIcon className="icon" aria-hidden="true" />
            {upload.isPending ? t('settings.branding.uploading') : t('settings.branding.upload')}
          </button>
          {logo && (
            <button type="button" className="secondary" onClick={() => void onRemove()} disabled={remove.isPending}>
              <DeleteIcon className="icon" aria-hidden="true" />
              {t('settings.branding.remove')}
            </button>
          )}
        </div>
      </form>
      <div aria-live="polite">
        {done && (
          <p className="notice" role="status">
            {t(done)}
          </p>
        )}
      </div>
    </section>
  );
}
