import qrcode from 'qrcode-generator';
import { useMemo } from 'react';
import { t } from '../../i18n/t';

const QUIET_ZONE = 4;

/**
 * A QR code of `value` as inline SVG (one path of dark modules): nothing is fetched and no
 * inline style or data URL is needed, so the dashboard's CSP stays as it is. Type 0 lets the
 * encoder pick the smallest size; level M survives a phone camera at an angle.
 */
export function QrCode({ value, label }: { value: string; label: 'security.qrLabel' }) {
  const { size, path } = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(value);
    qr.make();
    const n = qr.getModuleCount();
    let d = '';
    for (let row = 0; row < n; row++) {
      for (let col = 0; col < n; col++) if (qr.isDark(row, col)) d += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
    }
    return { size: n + 2 * QUIET_ZONE, path: d };
  }, [value]);
  return (
    <svg
      className="qr"
      role="img"
      aria-label={t(label)}
      viewBox={`0 0 ${size} ${size}`}
      width={size * 5}
      height={size * 5}
      shapeRendering="crispEdges"
      data-testid="totp-qr"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
