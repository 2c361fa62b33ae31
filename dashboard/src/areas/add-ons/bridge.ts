import { useEffect, type RefObject } from 'react';
import { callAction, type Answer } from './api';
import { MAX_IN_FLIGHT, readMessage } from './bridge-message';

/*
 * The action bridge (decisions-pending/dashsurf.md): an app's page in its sandboxed frame has no
 * session (opaque origin, no cookies), so it asks the dashboard to call one of its own app's
 * actions with the staff session. Only the call of that app's actions crosses: nothing else the
 * session may do, and nothing of the dashboard's state.
 */

/**
 * Listens for the frame's action calls while it is shown. Only messages whose source is this
 * frame's window count (not the dashboard's own, not another frame's, not a frame nested inside
 * it), and only `appKey`'s actions are called. Answers go to the frame's window with target
 * `'*'`: a sandboxed document's origin is opaque and cannot be named as a target. The frame
 * element is made again for another app's page (the caller keys it), and answers of a frame
 * no longer shown are dropped, so an answer never reaches another app's document.
 */
export function useActionBridge(frame: RefObject<HTMLIFrameElement | null>, appKey: string): void {
  useEffect(() => {
    const iframe = frame.current;
    if (!iframe) return;
    let shown = true;
    let inFlight = 0;
    const onMessage = (event: MessageEvent) => {
      const target = iframe.contentWindow;
      if (!target || event.source !== target) return;
      const reading = readMessage(event.data);
      if (!reading) return;
      const answer = (a: Answer) => {
        if (shown) target.postMessage({ type: 'svc-action-result', id: reading.id, ...a }, '*');
      };
      if (reading.kind === 'refuse') return answer({ ok: false, error: { code: reading.code, message: reading.message } });
      if (inFlight >= MAX_IN_FLIGHT) return answer({ ok: false, error: { code: 'BRIDGE_BUSY', message: `At most ${MAX_IN_FLIGHT} action calls at once.` } });
      inFlight++;
      void callAction(appKey, reading.name, reading.input)
        .then(answer)
        .finally(() => inFlight--);
    };
    window.addEventListener('message', onMessage);
    return () => {
      shown = false;
      window.removeEventListener('message', onMessage);
    };
  }, [frame, appKey]);
}
