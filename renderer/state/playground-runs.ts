/**
 * The request playground's scratch runs per session (issue 23, item 5), as the host lists them
 * (`listPlaygroundRuns`), for the count shown on each step row of the timeline. Loaded once per
 * session when a step row first asks, and again when a run ends.
 */
import { createStore } from 'zustand/vanilla';
import type { HostClient } from '../../shared/api.js';
import type { PlaygroundRun } from '../../shared/playground.js';

export interface PlaygroundRunsState {
  /** A session's stored runs; absent until loaded. */
  readonly bySession: Readonly<Record<string, readonly PlaygroundRun[]>>;
}

/** The store (one per window). */
export const playgroundRunsStore = createStore<PlaygroundRunsState>(() => ({ bySession: {} }));

const loading = new Set<string>();

/** Loads a session's runs (once, unless `again`); a failed load leaves the count off. */
export async function loadPlaygroundRuns(client: Pick<HostClient, 'listPlaygroundRuns'>, sessionId: string, again = false): Promise<void> {
  if (loading.has(sessionId) || (!again && playgroundRunsStore.getState().bySession[sessionId] !== undefined)) return;
  loading.add(sessionId);
  try {
    const runs = await client.listPlaygroundRuns({ sessionId });
    playgroundRunsStore.setState((s) => ({ bySession: { ...s.bySession, [sessionId]: runs } }));
  } catch {
    // No count on the rows; the playground itself shows the error when opened.
  } finally {
    loading.delete(sessionId);
  }
}
