/**
 * The Team section's state (issue 27): the host's team status (configured store, shared
 * workspaces, what waits to publish), the team's sessions and the last search, one store per host
 * client. It refetches the status on the host's `team/changed` push, and the list when asked,
 * when a publish from this app finished (the status's `publishedEvents` grew) and every
 * {@link TEAM_LIST_REFRESH_MS} while the section is shown ({@link TeamState.setVisible}). Those
 * background refreshes are quiet: the rows on screen stay until the answer comes, and an answer
 * equal to what is shown changes nothing (no re-render, so no flicker and focus stays put).
 * Errors are kept as their code and words, so the view can say "no team store" or "unreachable".
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { HostClient } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { TeamSearchHitView, TeamSessionView, TeamStatus } from '../../shared/team.js';

/** How often the shown Team list is fetched again (ms). One index scan of the server's sessions table. */
export const TEAM_LIST_REFRESH_MS = 10_000;

/** A failed team call: its error code (`TEAM_STORE_UNREACHABLE`, …) and message. */
export interface TeamFailure {
  readonly code: string;
  readonly message: string;
}

export interface TeamState {
  readonly status?: TeamStatus;
  readonly sessions?: readonly TeamSessionView[];
  readonly listState: 'idle' | 'loading' | 'ready' | 'error';
  readonly listError?: TeamFailure;
  readonly search?: { readonly query: string; readonly hits?: readonly TeamSearchHitView[]; readonly error?: TeamFailure };
  /** True while the Team section's list is on screen (the view sets it). */
  readonly visible: boolean;
  refreshStatus(): Promise<void>;
  /**
   * Fetches the team's sessions. `quiet` (background refreshes): no loading state, and nothing is
   * set when the answer equals the list shown. Calls while one is in flight share it.
   */
  refreshList(options?: { readonly quiet?: boolean }): Promise<void>;
  /** The view shows or hides the list; shown again, a list that went stale while hidden is fetched. */
  setVisible(visible: boolean): void;
  runSearch(query: string): Promise<void>;
  clearSearch(): void;
}

/** The code and message of any error a host call rejected with. */
export function teamFailure(error: unknown): TeamFailure {
  if (error instanceof ForklineError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

const stores = new WeakMap<HostClient, StoreApi<TeamState>>();

/** The team store of this host client (made on first use; it follows `team/changed` pushes from then on). */
export function teamStoreFor(client: HostClient): StoreApi<TeamState> {
  const existing = stores.get(client);
  if (existing) return existing;
  let inFlight: Promise<void> | undefined;
  let shownJson = '';
  const fetchList = async (set: StoreApi<TeamState>['setState'], get: StoreApi<TeamState>['getState'], quiet: boolean): Promise<void> => {
    if (!quiet) set({ listState: 'loading' });
    try {
      const sessions = await client.listTeamSessions({});
      const json = JSON.stringify(sessions);
      if (quiet && json === shownJson && get().listState === 'ready') return;
      shownJson = json;
      set({ sessions, listState: 'ready', listError: undefined });
    } catch (error) {
      const listError = teamFailure(error);
      const shown = get().listError;
      if (quiet && get().listState === 'error' && shown?.code === listError.code && shown.message === listError.message) return;
      set({ listState: 'error', listError });
    }
  };
  const store = createStore<TeamState>()((set, get) => ({
    listState: 'idle',
    visible: false,
    async refreshStatus() {
      try {
        const before = get().status?.publisher.publishedEvents;
        const status = await client.teamStatus({});
        set({ status });
        // A publish from this app finished: the list shows it (now when on screen, else when shown next).
        if (before !== undefined && status.publisher.publishedEvents > before && get().listState !== 'idle') {
          if (get().visible) void get().refreshList({ quiet: true });
          else set({ listState: 'idle' });
        }
      } catch {
        // An older host without the team store: the section stays hidden.
      }
    },
    refreshList(options) {
      inFlight ??= fetchList(set, get, options?.quiet === true).finally(() => (inFlight = undefined));
      return inFlight;
    },
    setVisible(visible) {
      if (get().visible !== visible) set({ visible });
    },
    async runSearch(query) {
      const q = query.trim();
      if (q === '') return get().clearSearch();
      set({ search: { query: q } });
      try {
        const hits = await client.searchTeamSessions({ query: q });
        if (get().search?.query === q) set({ search: { query: q, hits } });
      } catch (error) {
        if (get().search?.query === q) set({ search: { query: q, error: teamFailure(error) } });
      }
    },
    clearSearch() {
      set({ search: undefined });
    },
  }));
  client.onPush((push) => {
    if (push.kind === 'team/changed') void store.getState().refreshStatus();
  });
  void store.getState().refreshStatus();
  stores.set(client, store);
  return store;
}
