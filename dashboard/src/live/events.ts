/** An event of the realtime channel (D14): `/ws`, or server-sent events at /api/v1/events when a WebSocket cannot open. */
export interface LiveEvent {
  kind: string;
  at: number;
  data: unknown;
}

/**
 * Calls `onEvent` for every event of one of `kinds` while the calling component is mounted
 * (one shared connection for the whole app, reconnecting on its own).
 *
 * Until the shell's live channel lands this delivers nothing; screens may already subscribe.
 */
export function useLiveEvents(kinds: readonly string[], onEvent: (event: LiveEvent) => void): void {
  void kinds;
  void onEvent;
}
