import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { FormError } from '../../ui';
import { usePlacePage, useSurfaces, type Addon, type Surface } from './api';
import { appPagePath } from './surfaces';
import { Section } from '../../ui/Section';
import { DeleteIcon, PagesIcon } from '../../ui/icons';

/**
 * The add-on's dashboard pages and where they sit in the navigation: a section (a kebab-case
 * name the operator chooses, shown as words) and a position in it, or not listed at all.
 */
export function PagesSection({ addon }: { addon: Addon }) {
  const surfaces = useSurfaces(addon.surfaces.some((s) => s.kind === 'dashboard-page'));
  const pages = (surfaces.data ?? []).filter((s) => s.appKey === addon.key && s.kind === 'dashboard-page');
  if (pages.length === 0) return null;
  return (
    <Section id="addon-pages" title={t('addOns.pages.title')} description={t('addOns.pages.intro')} className="addons-section">
      {pages.map((page) => (
        <Placement key={page.name} page={page} enabled={addon.enabled} />
      ))}
    </Section>
  );
}

function Placement({ page, enabled }: { page: Surface; enabled: boolean }) {
  const id = useId();
  const [section, setSection] = useState(page.placement?.section ?? 'apps');
  const [order, setOrder] = useState(String(page.placement?.order ?? 0));
  const place = usePlacePage(page);
  const errors = place.error instanceof ApiError ? place.error.fieldErrors() : {};
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // A number the server cannot read is sent as typed, so its message (not the browser's) is shown.
    if (!place.isPending) place.mutate({ section: section.trim(), order: order.trim() === '' ? 0 : Number(order) });
  };
  const field = (name: 'section' | 'order') => ({
    id: `${id}-${name}`,
    'aria-invalid': errors[`nav.${name}`] ? true : undefined,
    'aria-describedby':
      [name === 'section' ? `${id}-section-hint` : null, errors[`nav.${name}`] ? `${id}-${name}-error` : null].filter(Boolean).join(' ') || undefined,
  });
  return (
    <form
      onSubmit={onSubmit}
      noValidate
      className="addons-settings"
      aria-label={t('addOns.pages.formLabel', { title: page.title })}
      data-testid={`page-${page.name}`}
    >
      <h3>{page.title}</h3>
      <p>
        {page.placement ? t('addOns.pages.placed', { section: page.placement.section, order: page.placement.order }) : t('addOns.pages.notPlaced')}
        {page.placement && enabled && (
          <>
            {' '}
            <Link href={appPagePath(page.appKey, page.name)}>{t('addOns.pages.open', { title: page.title })}</Link>
          </>
        )}
      </p>
      <div className="field">
        <label htmlFor={`${id}-section`}>{t('addOns.pages.section')}</label>
        <p className="hint" id={`${id}-section-hint`}>
          {t('addOns.pages.sectionHint')}
        </p>
        <input {...field('section')} type="text" value={section} maxLength={40} onChange={(e) => setSection(e.target.value)} />
        {errors['nav.section'] && (
          <p className="field-error" id={`${id}-section-error`}>
            {errors['nav.section']}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-order`}>{t('addOns.pages.order')}</label>
        <input {...field('order')} type="number" min={0} max={10000} step={1} value={order} onChange={(e) => setOrder(e.target.value)} />
        {errors['nav.order'] && (
          <p className="field-error" id={`${id}-order-error`}>
            {errors['nav.order']}
          </p>
        )}
      </div>
      <FormError error={place.error} />
      {place.isSuccess && (
        <p className="notice" role="status">
          {place.variables ? t('addOns.pages.wasPlaced', { title: page.title }) : t('addOns.pages.wasRemoved', { title: page.title })}
        </p>
      )}
      <div className="addons-actions">
        <button type="submit" disabled={place.isPending}>
          <PagesIcon className="icon" aria-hidden="true" />
          {page.placement ? t('addOns.pages.move', { title: page.title }) : t('addOns.pages.place', { title: page.title })}
        </button>
        {page.placement && (
          <button type="button" className="secondary" disabled={place.isPending} onClick={() => place.mutate(null)}>
            <DeleteIcon className="icon" aria-hidden="true" />
            {t('addOns.pages.remove', { title: page.title })}
          </button>
        )}
      </div>
    </form>
  );
}
