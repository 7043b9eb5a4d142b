/**
 * The Team section's state (issue 27): the host's team status (configured store, shared
 * workspaces, what waits to publish), the team's sessions and the last search, one store per host
 * client. It refetches the status on the host's `team/changed` push and the list when asked.
 * Errors are kept as their code and words, so the view can say "no team store" or "unreachable".
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { HostClient } from '../../shared/api.js';
import { ForklineError } from '../../shared/errors.js';
import type { TeamSearchHitView, TeamSessionView, TeamStatus } from '../../shared/team.js';

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
  refreshStatus(): Promise<void>;
  refreshList(): Promise<void>;
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
  const store = createStore<TeamState>()((set, get) => ({
    listState: 'idle',
    async refreshStatus() {
      try {
        set({ status: await client.teamStatus({}) });
      } catch {
        // An older host without the team store: the section stays hidden.
      }
    },
    async refreshList() {
      set({ listState: 'loading' });
      try {
        const sessions = await client.listTeamSessions({});
        set({ sessions, listState: 'ready', listError: undefined });
      } catch (error) {
        set({ listState: 'error', listError: teamFailure(error) });
      }
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
