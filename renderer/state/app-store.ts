/**
 * The app-wide store (one per window, created at startup and provided by context), built from
 * slices: sessions (sidebar list), selection, settings, connection, UI toggles, and the branch
 * picker / compare view choices. Like the session stores it holds facts from the host plus the
 * person's UI choices; anything derived (lineage tree, titles, branch labels, figures) is computed
 * in selectors/memos from `shared/` projections.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AgentStatus, SessionSummary, SettingsView } from '../../shared/api.js';
import type { ConnectionStatus } from '../host/ws-bridge.js';

export interface SessionsSlice {
  readonly sessions: readonly SessionSummary[];
  readonly sessionsState: 'idle' | 'loading' | 'ready' | 'error';
  readonly sessionsError?: string;
  setSessions(list: readonly SessionSummary[]): void;
  setSessionsLoading(): void;
  setSessionsError(message: string): void;
  patchSessionStatus(sessionId: string, status: AgentStatus): void;
}

export type InspectorTarget = { readonly kind: 'row'; readonly rowKey: string; readonly seq?: number } | { readonly kind: 'seq'; readonly seq: number };

export interface SelectionSlice {
  readonly selectedId?: string;
  /** A session whose composer should take focus once it is ready (a new session, a fork); cleared by the composer. */
  readonly focusComposerFor?: string;
  readonly inspector?: InspectorTarget;
  readonly requestTarget?: { readonly turn: number; readonly step: number };
  /** A seq the timeline should scroll to (set by "jump to"), with a nonce so repeats scroll again. */
  readonly jump?: { readonly seq: number; readonly nonce: number };
  /**
   * Opens a session (undefined: the start screen). Closes the compare view, the inspectors and the
   * branch picker — the picker belongs to one lineage — unless `keepBranches` (navigating the tree).
   */
  select(sessionId: string | undefined, options?: { readonly keepBranches?: boolean; readonly focusComposer?: boolean }): void;
  inspect(target: InspectorTarget | undefined): void;
  inspectRequest(target: { turn: number; step: number } | undefined): void;
  jumpTo(seq: number): void;
  composerFocused(): void;
  /** Scrolls the timeline to `seq` without opening the inspector (find). */
  reveal(seq: number): void;
}

export interface SettingsSlice {
  readonly settings?: SettingsView;
  readonly settingsOpen: boolean;
  setSettings(view: SettingsView): void;
  openSettings(open: boolean): void;
}

export interface ConnectionSlice {
  readonly connection: ConnectionStatus;
  setConnection(status: ConnectionStatus): void;
}

/** Two sessions shown side by side in the compare view. */
export interface CompareTarget {
  readonly a: string;
  readonly b: string;
}

/** The branch picker panel and the compare view (UI choices; the tree and figures are computed from host answers). */
export interface BranchesSlice {
  readonly branchesOpen: boolean;
  /** Set while the compare view replaces the session view; selecting a session closes it. */
  readonly compare?: CompareTarget;
  setBranchesOpen(open: boolean): void;
  /** Opens the compare view for two different sessions (ignored when they are the same). */
  openCompare(a: string, b: string): void;
  closeCompare(): void;
}

export type MainTab = 'timeline' | 'terminal';
export type Theme = 'dark' | 'light';

export interface UiSlice {
  readonly search: string;
  /** Show log-only events (request headers, inbox splices, titles, …) as muted rows. */
  readonly showLogEvents: boolean;
  /** "What the model sees": hide rows whose event a compaction/pruning replaced. */
  readonly modelView: boolean;
  /** Expanded rows, by `${sessionId}:${rowKey}`. */
  readonly expanded: Readonly<Record<string, true>>;
  readonly tab: MainTab;
  /** Dark first; light on request (persisted by the view layer). */
  readonly theme: Theme;
  readonly dismissedNotices: Readonly<Record<string, true>>;
  /** Transient messages for the person (errors of actions), newest last. */
  readonly toasts: readonly { readonly id: number; readonly text: string; readonly tone: 'error' | 'info' }[];
  setSearch(search: string): void;
  toggleLogEvents(): void;
  toggleModelView(): void;
  toggleExpanded(key: string): void;
  setExpanded(key: string, expanded: boolean): void;
  setTab(tab: MainTab): void;
  setTheme(theme: Theme): void;
  dismissNotice(key: string): void;
  toast(text: string, tone?: 'error' | 'info'): void;
  dropToast(id: number): void;
}

/** A side panel of the right-hand dock. */
export type DockTab = 'branches' | 'events' | 'request';

/**
 * Window layout and keyboard surfaces: the collapsible sidebar, which dock panel is in front, the
 * command palette, the in-session find bar, the folder browser and the first-run provider card.
 */
export interface LayoutSlice {
  readonly sidebarCollapsed: boolean;
  /** The dock panel last brought to the front (the dock shows it when it is open). */
  readonly dockTab: DockTab;
  readonly paletteOpen: boolean;
  readonly findOpen: boolean;
  /** Choosing a folder for a new session (browser mode; the desktop app asks the OS first). */
  readonly folderBrowserOpen: boolean;
  /** The provider setup card (first run, or a send without a working provider). */
  readonly setupOpen: boolean;
  /** Why the setup card is open: a send found no working provider, or the person asked for it. */
  readonly setupReason: 'send' | 'manual';
  /** A sidebar row being renamed or asked about deletion (row buttons, F2 / Delete keys, the palette). */
  readonly sessionEdit?: { readonly sessionId: string; readonly kind: 'rename' | 'delete' };
  setSidebarCollapsed(collapsed: boolean): void;
  setDockTab(tab: DockTab): void;
  openPalette(open: boolean): void;
  openFind(open: boolean): void;
  openFolderBrowser(open: boolean): void;
  openSetup(open: boolean, reason?: 'send' | 'manual'): void;
  editSession(edit: { readonly sessionId: string; readonly kind: 'rename' | 'delete' } | undefined): void;
}

export type AppState = SessionsSlice & SelectionSlice & SettingsSlice & ConnectionSlice & UiSlice & BranchesSlice & LayoutSlice;
export type AppStore = StoreApi<AppState>;

type Set = StoreApi<AppState>['setState'];
type Get = StoreApi<AppState>['getState'];

const sessionsSlice = (set: Set): SessionsSlice => ({
  sessions: [],
  sessionsState: 'idle',
  setSessions: (list) => set({ sessions: list, sessionsState: 'ready', sessionsError: undefined }),
  setSessionsLoading: () => set((s) => ({ sessionsState: s.sessionsState === 'ready' ? 'ready' : 'loading' })),
  setSessionsError: (message) => set({ sessionsState: 'error', sessionsError: message }),
  patchSessionStatus: (sessionId, status) =>
    set((s) => {
      const i = s.sessions.findIndex((x) => x.id === sessionId);
      if (i < 0 || s.sessions[i]!.status === status) return {};
      const sessions = s.sessions.slice();
      sessions[i] = { ...sessions[i]!, status };
      return { sessions };
    }),
});

/** Per-store counters (no module-level state). */
interface Counters {
  jump: number;
  toast: number;
}

const selectionSlice = (set: Set, counters: Counters): SelectionSlice => ({
  select: (selectedId, options = {}) =>
    set(() => ({
      selectedId,
      inspector: undefined,
      requestTarget: undefined,
      jump: undefined,
      compare: undefined,
      findOpen: false,
      ...(options.keepBranches ? {} : { branchesOpen: false }),
      focusComposerFor: options.focusComposer ? selectedId : undefined,
    })),
  inspect: (inspector) => set(inspector ? { inspector, dockTab: 'events' } : { inspector }),
  inspectRequest: (requestTarget) => set(requestTarget ? { requestTarget, dockTab: 'request' } : { requestTarget }),
  jumpTo: (seq) => set({ jump: { seq, nonce: ++counters.jump }, inspector: { kind: 'seq', seq }, dockTab: 'events' }),
  composerFocused: () => set({ focusComposerFor: undefined }),
  reveal: (seq) => set({ jump: { seq, nonce: ++counters.jump } }),
});

const settingsSlice = (set: Set): SettingsSlice => ({
  settingsOpen: false,
  setSettings: (settings) => set({ settings }),
  openSettings: (settingsOpen) => set({ settingsOpen }),
});

const connectionSlice = (set: Set, initial: ConnectionStatus): ConnectionSlice => ({
  connection: initial,
  setConnection: (connection) => set({ connection }),
});

const uiSlice = (set: Set, get: Get, counters: Counters, theme: Theme, showLogEvents: boolean): UiSlice => ({
  search: '',
  showLogEvents,
  modelView: false,
  expanded: {},
  tab: 'timeline',
  theme,
  dismissedNotices: {},
  toasts: [],
  setSearch: (search) => set({ search }),
  toggleLogEvents: () => set((s) => ({ showLogEvents: !s.showLogEvents })),
  toggleModelView: () => set((s) => ({ modelView: !s.modelView })),
  toggleExpanded: (key) => get().setExpanded(key, !get().expanded[key]),
  setExpanded: (key, expanded) =>
    set((s) => {
      if (Boolean(s.expanded[key]) === expanded) return {};
      const next: Record<string, true> = { ...s.expanded };
      if (expanded) next[key] = true;
      else delete next[key];
      return { expanded: next };
    }),
  setTab: (tab) => set({ tab }),
  setTheme: (next) => set({ theme: next }),
  dismissNotice: (key) => set((s) => ({ dismissedNotices: { ...s.dismissedNotices, [key]: true } })),
  toast: (text, tone = 'error') => set((s) => ({ toasts: [...s.toasts.slice(-4), { id: ++counters.toast, text, tone }] })),
  dropToast: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
});

const branchesSlice = (set: Set): BranchesSlice => ({
  branchesOpen: false,
  setBranchesOpen: (branchesOpen) => set(branchesOpen ? { branchesOpen, dockTab: 'branches' } : { branchesOpen }),
  openCompare: (a, b) => {
    if (a === b) return;
    set({ compare: { a, b } });
  },
  closeCompare: () => set({ compare: undefined }),
});

const layoutSlice = (set: Set, sidebarCollapsed: boolean): LayoutSlice => ({
  sidebarCollapsed,
  dockTab: 'branches',
  paletteOpen: false,
  findOpen: false,
  folderBrowserOpen: false,
  setupOpen: false,
  setupReason: 'manual',
  setSidebarCollapsed: (collapsed) => set({ sidebarCollapsed: collapsed }),
  setDockTab: (dockTab) => set({ dockTab }),
  openPalette: (paletteOpen) => set({ paletteOpen }),
  openFind: (findOpen) => set({ findOpen }),
  openFolderBrowser: (folderBrowserOpen) => set({ folderBrowserOpen }),
  openSetup: (setupOpen, reason = 'manual') => set({ setupOpen, setupReason: reason }),
  editSession: (sessionEdit) => set({ sessionEdit }),
});

export interface AppStoreOptions {
  readonly connection?: ConnectionStatus;
  readonly theme?: Theme;
  /** Log-only event rows visible (default false: a clean conversation; the debugger turns them on). */
  readonly showLogEvents?: boolean;
  /** The sidebar starts collapsed (remembered by the view layer). */
  readonly sidebarCollapsed?: boolean;
}

export function createAppStore(options: AppStoreOptions = {}): AppStore {
  const initialConnection = options.connection ?? { state: 'connecting', attempt: 0, openCount: 0 };
  const counters: Counters = { jump: 0, toast: 0 };
  return createStore<AppState>()((set, get) => ({
    ...sessionsSlice(set),
    ...selectionSlice(set, counters),
    ...settingsSlice(set),
    ...connectionSlice(set, initialConnection),
    ...uiSlice(set, get, counters, options.theme ?? 'dark', options.showLogEvents ?? false),
    ...branchesSlice(set),
    ...layoutSlice(set, options.sidebarCollapsed ?? false),
  }));
}
