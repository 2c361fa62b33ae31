import { t } from '../../i18n/t';
import type { VizType, WidgetResult } from './api';

/*
 * The widgets' charts: SVG drawn here, no chart library (decision DB30). Each chart's picture is
 * hidden from assistive technology and followed by a visually hidden table of the same values,
 * so a screen reader reads the numbers; the number widget is plain text.
 */

type Value = number | string | boolean | null;
interface Point {
  label: string;
  value: number;
  shown: string;
}

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/** A value as people read it: numbers in the browser's locale, the rest as given. */
export function formatValue(v: Value): string {
  if (v === null) return '—';
  if (typeof v === 'number') return numberFormat.format(v);
  if (typeof v === 'boolean') return v ? t('dashboards.value.true') : t('dashboards.value.false');
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && /^-?\d+(\.\d+)?$/.test(v.trim()) ? numberFormat.format(n) : v;
}

const asNumber = (v: Value): number => (typeof v === 'number' ? v : typeof v === 'string' && Number.isFinite(Number(v)) ? Number(v) : 0);

function bucketLabel(ms: number, unit: string | undefined, timeZone: string | undefined): string {
  const options: Intl.DateTimeFormatOptions =
    unit === 'hour' ? { dateStyle: 'short', timeStyle: 'short' } : unit === 'month' ? { year: 'numeric', month: 'short' } : { dateStyle: 'medium' };
  try {
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone }).format(new Date(ms));
  } catch {
    return new Intl.DateTimeFormat(undefined, options).format(new Date(ms));
  }
}

/** The result as labelled points, in the server's order (groups by value, series by time). */
export function pointsOf(result: WidgetResult, bucket?: { unit?: string; timeZone?: string }): Point[] {
  if (result.kind === 'value') return [{ label: t('dashboards.viz.value'), value: asNumber(result.value), shown: formatValue(result.value) }];
  if (result.kind === 'series')
    return result.points.map((p) => ({ label: bucketLabel(p.t, bucket?.unit, bucket?.timeZone), value: asNumber(p.value), shown: formatValue(p.value) }));
  const groups = result.groups.map((g) => ({
    label: g.key === null ? t('dashboards.group.empty') : String(g.key),
    value: asNumber(g.value),
    shown: formatValue(g.value),
  }));
  if (result.other !== undefined && result.other !== null)
    groups.push({ label: t('dashboards.group.other'), value: asNumber(result.other), shown: formatValue(result.other) });
  return groups;
}

/** A widget's picture of its result: the viz asked for, or what the result's kind can show. */
export function Viz({ type, result, title, bucket }: { type: VizType; result: WidgetResult; title: string; bucket?: { unit?: string; timeZone?: string } }) {
  if (result.kind === 'value' || type === 'number') {
    const value = result.kind === 'value' ? formatValue(result.value) : formatValue(pointsOf(result, bucket).reduce((s, p) => s + p.value, 0));
    return (
      <p className="dash-number" data-testid="widget-number">
        {value}
      </p>
    );
  }
  const points = pointsOf(result, bucket);
  if (points.length === 0) return <p className="dash-muted">{t('dashboards.viz.noData')}</p>;
  if (type === 'table') return <ValuesTable points={points} title={title} kind={result.kind} visible />;
  return (
    <figure className="dash-chart">
      {type === 'pie' ? <Pie points={points} /> : type === 'line' ? <Line points={points} /> : <Bars points={points} vertical={result.kind === 'series'} />}
      {type !== 'pie' && (type === 'line' || result.kind === 'series') && <Axis points={points} />}
      <ValuesTable points={points} title={title} kind={result.kind} />
    </figure>
  );
}

/** The values as a table: visible for the table viz, else visually hidden (the chart's text alternative). */
function ValuesTable({ points, title, kind, visible }: { points: Point[]; title: string; kind: WidgetResult['kind']; visible?: boolean }) {
  return (
    <div className={visible ? 'dash-table-wrap' : 'visually-hidden'}>
      <table className="dash-table" data-testid="widget-values">
        <caption className="visually-hidden">{title}</caption>
        <thead>
          <tr>
            <th scope="col">{kind === 'series' ? t('dashboards.viz.when') : t('dashboards.viz.group')}</th>
            <th scope="col">{t('dashboards.viz.value')}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p, i) => (
            <tr key={i}>
              <th scope="row">{p.label}</th>
              <td>{p.shown}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const W = 320;
const H = 160;
const PALETTE = ['var(--accent)', '#e8710a', '#1e8e3e', '#9334e6', '#d01884', '#12b5cb', '#f9ab00', '#5f6368'];

/** A series' first and last period and its highest value, under the chart (SVG text would stretch with it). */
function Axis({ points }: { points: Point[] }) {
  const top = points.reduce((a, b) => (b.value > a.value ? b : a), points[0]!);
  return (
    <div className="dash-axis" aria-hidden="true">
      <span>{points[0]!.label}</span>
      <span>↑ {top.shown}</span>
      {points.length > 1 && <span>{points[points.length - 1]!.label}</span>}
    </div>
  );
}

/** Horizontal bars for groups (labels on the left), columns for a series. */
function Bars({ points, vertical }: { points: Point[]; vertical: boolean }) {
  const max = Math.max(...points.map((p) => p.value), 0) || 1;
  if (vertical) {
    const step = W / points.length;
    return (
      <svg viewBox={`0 0 ${W} ${H}`} className="dash-svg" aria-hidden="true" preserveAspectRatio="none">
        {points.map((p, i) => {
          const h = Math.max(0, (p.value / max) * (H - 4));
          return <rect key={i} x={i * step + step * 0.1} y={H - h} width={step * 0.8} height={h} fill="var(--accent)" />;
        })}
      </svg>
    );
  }
  return (
    <div className="dash-bars" aria-hidden="true">
      {points.map((p, i) => (
        <div className="dash-bar-row" key={i}>
          <span className="dash-bar-label" title={p.label}>
            {p.label}
          </span>
          <span className="dash-bar-track">
            <span className="dash-bar" style={{ width: `${Math.max(0, (p.value / max) * 100)}%` }} />
          </span>
          <span className="dash-bar-value">{p.shown}</span>
        </div>
      ))}
    </div>
  );
}

function Line({ points }: { points: Point[] }) {
  const max = Math.max(...points.map((p) => p.value), 0) || 1;
  const min = Math.min(...points.map((p) => p.value), 0);
  const span = max - min || 1;
  const x = (i: number) => (points.length === 1 ? W / 2 : 4 + (i * (W - 8)) / (points.length - 1));
  const y = (v: number) => H - 4 - ((v - min) / span) * (H - 8);
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join('');
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="dash-svg" aria-hidden="true" preserveAspectRatio="none">
      <line x1="0" x2={W} y1={y(min)} y2={y(min)} stroke="var(--border)" />
      <path d={d} fill="none" stroke="var(--accent)" strokeWidth="2" vectorEffect="non-scaling-stroke" />
      {points.map((p, i) => (
        <circle key={i} cx={x(i)} cy={y(p.value)} r="3" fill="var(--accent)" />
      ))}
    </svg>
  );
}

function Pie({ points }: { points: Point[] }) {
  const total = points.reduce((s, p) => s + Math.max(0, p.value), 0) || 1;
  let angle = -Math.PI / 2;
  const r = 70;
  const c = 80;
  return (
    <div className="dash-pie" aria-hidden="true">
      <svg viewBox="0 0 160 160" className="dash-pie-svg">
        {points.map((p, i) => {
          const share = Math.max(0, p.value) / total;
          const start = angle;
          angle += share * 2 * Math.PI;
          const fill = PALETTE[i % PALETTE.length];
          if (share >= 0.9999) return <circle key={i} cx={c} cy={c} r={r} fill={fill} />;
          const large = share > 0.5 ? 1 : 0;
          const d = `M${c},${c}L${c + r * Math.cos(start)},${c + r * Math.sin(start)}A${r},${r} 0 ${large} 1 ${c + r * Math.cos(angle)},${c + r * Math.sin(angle)}Z`;
          return <path key={i} d={d} fill={fill} stroke="var(--bg)" strokeWidth="1" />;
        })}
      </svg>
      <ul className="dash-legend">
        {points.map((p, i) => (
          <li key={i}>
            <span className="dash-swatch" style={{ background: PALETTE[i % PALETTE.length] }} />
            {p.label}: {p.shown}
          </li>
        ))}
      </ul>
    </div>
  );
}
