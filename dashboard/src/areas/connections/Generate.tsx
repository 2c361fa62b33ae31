import { useEffect, useRef, useState } from 'react';
import { useParams } from 'wouter';
import type { Schemas } from '../../api/types';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading } from '../../ui';
import { useGenerate, useSchema, type EffectiveTable } from './api';
import { ConnectionScreen } from './parts';
import './connections.css';

type GeneratedPage = Schemas['GeneratedPage'];

/** POST /connections/{id}/generate: a list and a detail page per chosen table; a preview first if wanted. */
export function Generate() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.generate">
      {() => <GenerateFor id={id} />}
    </ConnectionScreen>
  );
}

function GenerateFor({ id }: { id: string }) {
  const schema = useSchema(id);
  if (schema.isPending) return <Loading />;
  if (schema.isError) return <ErrorPanel error={schema.error} onRetry={() => void schema.refetch()} />;
  if (schema.data === null) return <p>{t('connections.schema.notRead')}</p>;
  return <GenerateForm id={id} tables={schema.data.model.tables} />;
}

function GenerateForm({ id, tables }: { id: string; tables: EffectiveTable[] }) {
  // Hidden tables are left out unless chosen on purpose (as the API does without a list).
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(tables.filter((x) => !x.display.hidden).map((x) => x.ref)));
  const run = useGenerate(id);
  const generate = (dryRun: boolean) => run.mutate({ tables: tables.filter((x) => chosen.has(x.ref)).map((x) => x.ref), dryRun });
  const outcome = useRef<HTMLDivElement>(null);
  const settled = run.isSuccess || run.isError ? run.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);
  const toggle = (ref: string, on: boolean) =>
    setChosen((s) => {
      const next = new Set(s);
      if (on) next.add(ref);
      else next.delete(ref);
      return next;
    });

  return (
    <>
      <p>{t('connections.generate.intro')}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          generate(false);
        }}
        className="conn-form"
      >
        <fieldset>
          <legend>{t('connections.generate.tables')}</legend>
          <ul className="conn-checks">
            {tables.map((x) => (
              <li key={x.ref}>
                <label>
                  <input type="checkbox" checked={chosen.has(x.ref)} onChange={(e) => toggle(x.ref, e.target.checked)} /> {x.display.label}{' '}
                  <span className="conn-ref">{x.ref}</span>
                  {x.display.hidden && <span className="conn-tag">{t('connections.flag.hidden')}</span>}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div className="conn-actions">
          <button type="button" className="secondary" disabled={run.isPending || chosen.size === 0} onClick={() => generate(true)}>
            {t('connections.generate.preview')}
          </button>
          <button type="submit" disabled={run.isPending || chosen.size === 0}>
            {run.isPending ? t('connections.generate.running') : t('connections.generate.run')}
          </button>
        </div>
      </form>
      <div ref={outcome} tabIndex={-1} className="outcome">
        {run.isError && (
          <div className="form-error" role="alert">
            <p>{errorText(run.error)}</p>
          </div>
        )}
        {run.isSuccess && (
          <section aria-labelledby="conn-gen-outcome" className="conn-card">
            <h2 id="conn-gen-outcome">{run.data.dryRun ? t('connections.generate.previewTitle') : t('connections.generate.doneTitle')}</h2>
            <p role="status">
              {t(run.data.dryRun ? 'connections.generate.wouldCreate' : 'connections.generate.created', {
                created: run.data.created.length,
                existing: run.data.existing.length,
                skipped: run.data.skipped.length,
              })}
            </p>
            <PageList title="connections.generate.createdList" pages={run.data.created} />
            <PageList title="connections.generate.existingList" pages={run.data.existing} />
            {run.data.skipped.length > 0 && (
              <>
                <h3>{t('connections.generate.skippedList')}</h3>
                <ul>
                  {run.data.skipped.map((s) => (
                    <li key={`${s.table}:${s.kind}`}>{t('connections.generate.skippedItem', { table: s.table, kind: s.kind })}</li>
                  ))}
                </ul>
              </>
            )}
          </section>
        )}
      </div>
    </>
  );
}

function PageList({ title, pages }: { title: 'connections.generate.createdList' | 'connections.generate.existingList'; pages: GeneratedPage[] }) {
  if (pages.length === 0) return null;
  return (
    <>
      <h3>{t(title)}</h3>
      <ul data-testid={title}>
        {pages.map((p) => (
          <li key={p.generatedKey}>
            {t(p.kind === 'list' ? 'connections.generate.listPage' : 'connections.generate.detailPage', { title: p.title, slug: p.slug })}
          </li>
        ))}
      </ul>
    </>
  );
}
