import { useState } from 'react';
import { t } from '../i18n/t';

/**
 * Copying text to the clipboard with an outcome to announce (in a role="status"): "Copied…",
 * or that the browser refused (no permission, not a secure context), so the person selects it.
 */
export function useCopy(): { copy: (text: string) => Promise<void>; outcome: string; reset: () => void } {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  const outcome = copied === 'yes' ? t('secret.copied') : copied === 'failed' ? t('secret.copyFailed') : '';
  return { copy, outcome, reset: () => setCopied(null) };
}
