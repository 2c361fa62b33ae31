import { useId, type ReactNode } from 'react';
import { t } from '../../i18n/t';
import type { AddonPlan } from './api';
import { DataTable } from '../../ui/DataTable';

type PlanColumn = AddonPlan['tables'][number]['columns'][number];
type PlanEndpoint = AddonPlan['endpoints'][number];

/** What one change of an upgrade is, in words, for the list of changes (the plan's diff). */
export function planChanges(plan: AddonPlan): string[] {
  const out: string[] = [];
  for (const table of plan.tables) {
    if (table.action === 'create') out.push(t('addOns.diff.newTable', { table: table.name, count: table.columns.length }));
    if (table.action === 'drop') out.push(t('addOns.diff.dropTable', { table: table.name }));
    if (table.action !== 'alter') continue;
    for (const c of table.columns) {
      if (c.action === 'add') out.push(t('addOns.diff.newColumn', { table: table.name, column: c.name, type: c.type }));
      if (c.action === 'drop') out.push(t('addOns.diff.dropColumn', { table: table.name, column: c.name }));
      if (c.action === 'retype') out.push(t('addOns.diff.retypeColumn', { table: table.name, column: c.name, type: c.type }));
    }
  }
  for (const e of plan.endpoints) {
    if (e.action === 'create') out.push(t('addOns.diff.newEndpoint', { ref: e.ref, methods: e.methods.join(', ') }));
    if (e.action === 'remove') out.push(t('addOns.diff.removeEndpoint', { ref: e.ref }));
    if (e.action === 'change') out.push(t('addOns.diff.changeEndpoint', { ref: e.ref, fields: e.changes.join(', ') }));
  }
  return out;
}

function Names({ items, empty }: { items: readonly string[]; empty: string }) {
  if (items.length === 0) return <p className="hint">{empty}</p>;
  return (
    <ul className="addons-names">
      {items.map((i) => (
        <li key={i}>
          <code>{i}</code>
        </li>
      ))}
    </ul>
  );
}

function Part({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="addons-plan-part" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

const action = (a: string) => t('addOns.plan.action', { action: a });
const changed = (a: string) => (a === 'keep' ? undefined : 'addons-change');

/**
 * Every effect of an install or upgrade, as the plan lists it (D24): whether the package is
 * verified first, then tables and columns, endpoints, capabilities, outbound hosts, surfaces,
 * hooks, actions, peak, connect and settings. Rows that change are marked.
 */
export function PlanView({ plan }: { plan: AddonPlan }) {
  const upgrade = plan.from !== null;
  const changes = upgrade ? planChanges(plan) : [];
  return (
    <div className="addons-plan" data-testid="plan">
      <div className={plan.verified ? 'addons-verified addons-verified-yes' : 'addons-verified addons-verified-no'} data-testid="plan-verified">
        <p>
          <strong>{plan.verified ? t('addOns.verified.yes') : t('addOns.verified.no')}</strong>
        </p>
        <p>{plan.verified ? t('addOns.plan.verifiedYes') : t('addOns.plan.verifiedNo')}</p>
      </div>
      {plan.destructive && (
        <p className="form-error" data-testid="plan-destructive">
          {t('addOns.plan.destructive')}
        </p>
      )}
      {plan.warnings.length > 0 && (
        <Part title={t('addOns.plan.warnings')}>
          <ul className="addons-warnings">
            {plan.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Part>
      )}
      {upgrade && (
        <Part title={t('addOns.plan.changes', { from: plan.from ?? '', to: plan.to ?? '' })}>
          {changes.length === 0 ? (
            <p className="hint">{t('addOns.plan.noChanges')}</p>
          ) : (
            <ul className="addons-diff" data-testid="plan-changes">
              {changes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          )}
        </Part>
      )}
      <Part title={t('addOns.plan.tables', { count: plan.tables.length })}>
        {plan.tables.length === 0 && <p className="hint">{t('addOns.plan.noTables')}</p>}
        {plan.tables.map((table) => (
          <DataTable
            key={table.name}
            className="addons-table"
            variant="grid"
            testId="plan-table"
            caption={
              <>
                <code>{table.name}</code> {t('addOns.plan.tableAction', { action: table.action })}
              </>
            }
            columns={[
              { id: 'column', header: t('addOns.plan.column'), rowHeader: true, cell: (c: PlanColumn) => <code>{c.name}</code> },
              { id: 'type', header: t('addOns.plan.type'), cell: (c: PlanColumn) => c.type },
              { id: 'change', header: t('addOns.plan.change'), cell: (c: PlanColumn) => action(c.action) },
            ]}
            rows={table.columns}
            rowKey={(c) => c.name}
            rowAttributes={(c) => ({ className: changed(c.action) })}
          />
        ))}
      </Part>
      <Part title={t('addOns.plan.endpoints', { count: plan.endpoints.length })}>
        {plan.endpoints.length === 0 ? (
          <p className="hint">{t('addOns.plan.noEndpoints')}</p>
        ) : (
          <DataTable
            className="addons-table"
            variant="grid"
            testId="plan-endpoints"
            label={t('addOns.plan.endpoints', { count: plan.endpoints.length })}
            columns={[
              {
                id: 'ref',
                header: t('addOns.plan.ref'),
                rowHeader: true,
                cell: (e: PlanEndpoint) => (
                  <>
                    <code>{e.ref}</code>
                    {e.definition && (
                      <details>
                        <summary>{t('addOns.plan.definition')}</summary>
                        <pre>{JSON.stringify(e.definition, null, 2)}</pre>
                      </details>
                    )}
                  </>
                ),
              },
              { id: 'table', header: t('addOns.plan.table'), cell: (e: PlanEndpoint) => <code>{e.table}</code> },
              { id: 'methods', header: t('addOns.plan.methods'), cell: (e: PlanEndpoint) => e.methods.join(', ') },
              {
                id: 'change',
                header: t('addOns.plan.change'),
                cell: (e: PlanEndpoint) => (e.action === 'change' ? t('addOns.plan.endpointChanges', { fields: e.changes.join(', ') }) : action(e.action)),
              },
            ]}
            rows={plan.endpoints}
            rowKey={(e) => e.ref}
            rowAttributes={(e) => ({ className: changed(e.action) })}
          />
        )}
        {plan.endpoints.some((e) => e.action !== 'remove') && <p className="hint">{t('addOns.plan.appKey', { peak: plan.peak })}</p>}
      </Part>
      <Part title={t('addOns.plan.capabilities')}>
        <Names items={plan.capabilities} empty={t('addOns.plan.noCapabilities')} />
      </Part>
      <Part title={t('addOns.plan.outbound')}>
        <div data-testid="plan-outbound">
          <Names items={plan.outbound} empty={t('addOns.plan.noOutbound')} />
        </div>
      </Part>
      <Part title={t('addOns.plan.code')}>
        <dl className="addons-facts">
          <dt>{t('addOns.plan.hooks')}</dt>
          <dd>{plan.hooks.length ? plan.hooks.join(', ') : t('addOns.plan.none')}</dd>
          <dt>{t('addOns.plan.actions')}</dt>
          <dd>{plan.actions.length ? plan.actions.join(', ') : t('addOns.plan.none')}</dd>
          <dt>{t('addOns.plan.mailTemplates')}</dt>
          <dd data-testid="plan-mail">
            {plan.mailTemplates.length
              ? plan.mailTemplates.map((m) => t('addOns.plan.mailTemplate', { key: m.key, subject: m.subject, locales: m.locales.join(', ') })).join('; ')
              : t('addOns.plan.none')}
          </dd>
          <dt>{t('addOns.plan.surfaces')}</dt>
          <dd>
            {plan.surfaces.length ? plan.surfaces.map((s) => t('addOns.plan.surface', { title: s.title, kind: s.kind })).join(', ') : t('addOns.plan.none')}
          </dd>
          <dt>{t('addOns.plan.connect')}</dt>
          <dd>{plan.connect ? t('addOns.plan.connectKind', { kind: plan.connect.kind }) : t('addOns.plan.none')}</dd>
          <dt>{t('addOns.plan.limits')}</dt>
          <dd data-testid="plan-limits">{t('addOns.plan.limitsValue', { memoryMb: plan.limits.memoryMb, cpuMs: plan.limits.cpuMs })}</dd>
        </dl>
      </Part>
      <Part title={t('addOns.plan.settings', { count: plan.settings.length })}>
        {plan.settings.length === 0 ? (
          <p className="hint">{t('addOns.plan.none')}</p>
        ) : (
          <ul className="addons-names">
            {plan.settings.map((s) => (
              <li key={s.name}>
                <code>{s.name}</code> {t('addOns.plan.setting', { type: s.type, required: String(s.required), secret: String(s.secret) })}
              </li>
            ))}
          </ul>
        )}
      </Part>
      {plan.settingChanges.length > 0 && (
        <Part title={t('addOns.plan.settingChanges')}>
          <ul className="addons-diff" data-testid="plan-setting-changes">
            {plan.settingChanges.map((c) => (
              <li key={`${c.instance ?? ''}/${c.name}`}>
                {c.instance === null ? c.message : t('addOns.plan.settingChangeOf', { instance: c.instance, message: c.message })}
              </li>
            ))}
          </ul>
        </Part>
      )}
    </div>
  );
}
