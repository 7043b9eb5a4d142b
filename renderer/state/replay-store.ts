/**
 * "Replay on this build" results per session (issue 23, item 4), for the timeline banner, the
 * divergent step's marker and the request inspector's diff view; and the inspector tab a view
 * asked for (the banner opens the Diff tab on the divergent request). One small vanilla store
 * beside the app store, so the replay views share one result without widening AppState.
 */
import { createStore } from 'zustand/vanilla';
import type { HostClient } from '../../shared/api.js';
import type { ReplayReport } from '../../shared/replay.js';

/** One session's replay: running, its report, or why the call failed. */
export type ReplayState =
  | { readonly phase: 'running' }
  /** `lastSeq`: the session's last seq when the replay started (a longer log means the report is about less than the session holds now). */
  | { readonly phase: 'done'; readonly report: ReplayReport; readonly lastSeq?: number }
  | { readonly phase: 'failed'; readonly error: string };

export interface ReplayStoreState {
  readonly bySession: Readonly<Record<string, ReplayState>>;
  /** The inspector tab a view asked for, once (`nonce` tells requests apart). */
  readonly tabRequest?: { readonly tab: 'diff' | 'playground'; readonly nonce: number };
}

/** The store (one per window). */
export const replayStore = createStore<ReplayStoreState>(() => ({ bySession: {} }));

let nonce = 0;

/** Asks the request inspector to show `tab`. */
export function requestInspectorTab(tab: 'diff' | 'playground'): void {
  replayStore.setState({ tabRequest: { tab, nonce: ++nonce } });
}

/** Forgets a session's replay (the banner's close button). */
export function dismissReplay(sessionId: string): void {
  const { [sessionId]: _gone, ...rest } = replayStore.getState().bySession;
  replayStore.setState({ bySession: rest });
}

/**
 * Replays `sessionId` on this build through the host and keeps the outcome; a second call while
 * one runs is ignored. `describe` turns a failure into the line shown; `lastSeq` is the session's
 * last seq as the view knows it (kept, to say when the session has grown since).
 */
export async function runReplay(client: Pick<HostClient, 'replaySession'>, sessionId: string, describe: (error: unknown) => string, lastSeq?: number): Promise<void> {
  if (replayStore.getState().bySession[sessionId]?.phase === 'running') return;
  const put = (state: ReplayState): void => replayStore.setState((s) => ({ bySession: { ...s.bySession, [sessionId]: state } }));
  put({ phase: 'running' });
  try {
    const report = await client.replaySession({ sessionId });
    put({ phase: 'done', report, ...(lastSeq !== undefined ? { lastSeq } : {}) });
  } catch (error) {
    put({ phase: 'failed', error: describe(error) });
  }
}
