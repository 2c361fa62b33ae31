import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { LIVE_KINDS, staleKeys } from '../areas';
import { BOOTSTRAP_STALE_KINDS, bootstrapKey } from '../api/bootstrap';
import { LIVE_CLOSED, LIVE_RECONNECTED, useLiveEvents, useLiveState, type LiveEvent } from '../live/events';
import { catalogueChanged, t } from '../i18n/t';
import { ME } from '../session';
import { NOTIFICATION_CREATED, NOTIFICATIONS } from '../areas/account/notifications';

/** A translation, a locale's fallback or direction changed (plugins/i18n): the catalogue shown is fetched again. */
export const I18N_CHANGED = 'i18n.changed';

/** The shell's own kinds (the bell, the channel's state, the catalogue), the bootstrap's (branding.changed among them) and every kind an area declares (Area.live). */
const KINDS = [...new Set([NOTIFICATION_CREATED, LIVE_RECONNECTED, LIVE_CLOSED, I18N_CHANGED, ...BOOTSTRAP_STALE_KINDS, ...LIVE_KINDS])];

/**
 * The shell's use of the realtime channel: notifications refresh the bell (and are announced),
 * an area's events invalidate the keys the area declared for them (the shell knows no area's
 * keys), the bootstrap's parts follow their events (BOOTSTRAP_STALE_KINDS), and a reconnect refreshes what is on screen (events may have been missed while the
 * channel was down). Screens that need finer handling subscribe with useLiveEvents themselves.
 */
export function LiveSync() {
  const queryClient = useQueryClient();
  const [announcement, setAnnouncement] = useState('');
  const state = useLiveState();
  useLiveEvents(KINDS, (event: LiveEvent) => {
    if (BOOTSTRAP_STALE_KINDS.has(event.kind)) void queryClient.invalidateQueries({ queryKey: bootstrapKey });
    // The strings on screen follow a translation made in another tab or by another person at once (issue 31).
    if (event.kind === I18N_CHANGED) void catalogueChanged(event.data);
    if (event.kind === NOTIFICATION_CREATED) {
      void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS });
      const title = (event.data as { title?: unknown } | null)?.title;
      if (typeof title === 'string') setAnnouncement(t('notifications.arrived', { title }));
      return;
    }
    if (event.kind === LIVE_RECONNECTED) {
      void queryClient.invalidateQueries({ type: 'active' });
      void catalogueChanged(null); // translations may have changed meanwhile
      return;
    }
    if (event.kind === LIVE_CLOSED) {
      // The server closed the channel because the session ended: asking who is signed in leads to sign-in.
      void queryClient.invalidateQueries({ queryKey: ME });
      return;
    }
    for (const queryKey of staleKeys(event.kind, event.data)) void queryClient.invalidateQueries({ queryKey });
  });
  return (
    <>
      <div className="visually-hidden" aria-live="polite">
        {announcement}
      </div>
      {state === 'waiting' && <p className="live-paused">{t('live.paused')}</p>}
    </>
  );
}
