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

/** Which request the request inspector shows: a step's (last or given) attempt, or the n-th request of the session. */
export type RequestTarget = { readonly turn: number; readonly step: number; readonly attempt?: number } | { readonly index: number };

/** The in-session find bar: its query and which match is current. */
export interface FindState {
  readonly query: string;
  /** Index of the current match (clamped by the view to the matches it finds). */
  readonly index: number;
}

export interface SelectionSlice {
  readonly selectedId?: string;
  /**
   * A session that should take focus once it is ready (opened from the list, a new session, a fork):
   * its composer, or its timeline when it is read-only; cleared by the session view.
   */
  readonly focusSessionFor?: string;
  readonly inspector?: InspectorTarget;
  readonly requestTarget?: RequestTarget;
  /**
   * A seq the timeline should scroll to (set by "jump to"), with a nonce so repeats scroll again;
   * `text` (a search hit's matched term): the row opens if that text is folded away, and it is marked.
   */
  readonly jump?: { readonly seq: number; readonly nonce: number; readonly text?: string };
  /**
   * The timeline of `sessionId` should jump to its newest row and follow the tail again (a message
   * the person sent: a new turn, a queued follow-up, steering); the nonce makes repeats count.
   */
  readonly toLatest?: { readonly sessionId: string; readonly nonce: number };
  /**
   * Opens a session (undefined: the start screen). Closes the compare view, the inspectors, find and
   * the branch picker — the picker belongs to one lineage — unless `keepBranches` (navigating the tree).
   * `focusSession`: focus moves into the session once it is ready (see `focusSessionFor`).
   */
  select(sessionId: string | undefined, options?: { readonly keepBranches?: boolean; readonly focusSession?: boolean }): void;
  /** Opens a session scrolled to the row of `seq` (a search hit), with `text` shown and marked in it. */
  openAt(sessionId: string, seq: number, text?: string): void;
  inspect(target: InspectorTarget | undefined): void;
  inspectRequest(target: RequestTarget | undefined): void;
  /** Scrolls the timeline to the row of `seq` and shows its events in the raw inspector. */
  jumpTo(seq: number): void;
  /** Scrolls the timeline to the row of `seq` (marked as the current row) without opening an inspector. */
  scrollTo(seq: number): void;
  /** Brings `sessionId`'s timeline to its newest row, following the tail again (see `toLatest`). */
  showLatest(sessionId: string): void;
  sessionFocused(): void;
}

/** Finding things inside the open session: the find bar and the turn outline (actions keyboard shortcuts bind to). */
export interface FindSlice {
  /** Open when defined. */
  readonly find?: FindState;
  readonly outlineOpen: boolean;
  /** Opens the find bar (keeps the current query); Ctrl/Cmd+F binds here. */
  openFind(): void;
  closeFind(): void;
  setFindQuery(query: string): void;
  /** Moves to the next (+1) or previous (−1) match; the view wraps it around. */
  stepFind(delta: number): void;
  toggleOutline(): void;
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
  /** The board this comparison was opened from ("A/B details"): closing the comparison goes back to it. */
  readonly fromBoard?: BoardTarget;
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
  /** Set while the N-way board (3–8 branches) replaces the session view. */
  readonly board?: BoardTarget;
  /** Opens the board for 2–8 sessions (two without a fan-out open the compare view). */
  openBoard(target: BoardTarget): void;
  closeBoard(): void;
}

/** What the board shows: the branches in order and, for a running fan-out, its id and check. */
export interface BoardTarget {
  readonly ids: readonly string[];
  readonly fanoutId?: string;
  readonly check?: string;
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
  /** Unsent message-box text per session, kept while another session is open (this window only). */
  readonly drafts: Readonly<Record<string, string>>;
  readonly tab: MainTab;
  /** Dark first; light on request (persisted by the view layer). */
  readonly theme: Theme;
  readonly dismissedNotices: Readonly<Record<string, true>>;
  /** Transient messages for the person (errors of actions, import summaries), newest last. */
  readonly toasts: readonly Toast[];
  /** Files being imported right now, with the share already sent (0…1), for the progress bar. */
  readonly imports: readonly { readonly key: number; readonly fileName: string; readonly fraction: number }[];
  setSearch(search: string): void;
  toggleLogEvents(): void;
  toggleModelView(): void;
  toggleExpanded(key: string): void;
  setExpanded(key: string, expanded: boolean): void;
  /** Keeps (or, when empty, forgets) a session's unsent text. */
  setDraft(sessionId: string, text: string): void;
  setTab(tab: MainTab): void;
  setTheme(theme: Theme): void;
  dismissNotice(key: string): void;
  toast(text: string, tone?: 'error' | 'info', detail?: readonly string[]): void;
  dropToast(id: number): void;
  /** Starts (fraction 0), updates or (with `undefined`) ends an import's progress entry. */
  setImportProgress(key: number, fileName: string, fraction: number | undefined): void;
}

/** One toast: a line, optional detail lines (an import summary), and its tone. */
export interface Toast {
  readonly id: number;
  readonly text: string;
  readonly tone: 'error' | 'info';
  readonly detail?: readonly string[];
}

/** A side panel of the right-hand dock. */
export type DockTab = 'branches' | 'events' | 'request';

/**
 * Window layout and keyboard surfaces: the collapsible sidebar, which dock panel is in front, the
 * command palette, the folder browser and the first-run provider card (find: {@link FindSlice}).
 */
export interface LayoutSlice {
  /** The person hid the sidebar (Ctrl+B, its button; remembered across runs). */
  readonly sidebarCollapsed: boolean;
  /** The window is narrower than {@link ROOMY_WIDTH} (set by the sidebar from a media query). */
  readonly narrowWindow: boolean;
  /** A side panel of the dock is open (set by the dock). */
  readonly dockOpen: boolean;
  /**
   * The person unfolded the sidebar while it was folded to give the timeline room: it stays open
   * beside a side panel until the window is wide again.
   */
  readonly sidebarKeptOpen: boolean;
  /** The dock panel last brought to the front (the dock shows it when it is open). */
  readonly dockTab: DockTab;
  readonly paletteOpen: boolean;
  /** Choosing a folder for a new session (browser mode; the desktop app asks the OS first). */
  readonly folderBrowserOpen: boolean;
  /** The provider setup card (first run, or a send without a working provider). */
  readonly setupOpen: boolean;
  /** Why the setup card is open: a send found no working provider, or the person asked for it. */
  readonly setupReason: 'send' | 'manual';
  /** A sidebar row being renamed, asked about deletion, or exported as a bundle (row buttons, F2 / Delete keys, the palette). */
  readonly sessionEdit?: { readonly sessionId: string; readonly kind: 'rename' | 'delete' | 'bundle' };
  /** Hides the sidebar, or shows it (also when it was folded for room: then it is kept open while the window stays narrow). */
  setSidebarCollapsed(collapsed: boolean): void;
  /** What the layout depends on: the window's width class and whether the dock is open. */
  setLayoutFacts(facts: { readonly narrowWindow?: boolean; readonly dockOpen?: boolean }): void;
  setDockTab(tab: DockTab): void;
  openPalette(open: boolean): void;
  openFolderBrowser(open: boolean): void;
  openSetup(open: boolean, reason?: 'send' | 'manual'): void;
  editSession(edit: { readonly sessionId: string; readonly kind: 'rename' | 'delete' | 'bundle' } | undefined): void;
}

export type AppState = SessionsSlice & SelectionSlice & SettingsSlice & ConnectionSlice & UiSlice & BranchesSlice & FindSlice & LayoutSlice;
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
      board: undefined,
      find: undefined,
      ...(options.keepBranches ? {} : { branchesOpen: false }),
      focusSessionFor: options.focusSession ? selectedId : undefined,
    })),
  openAt: (selectedId, seq, text) =>
    set({
      selectedId,
      inspector: undefined,
      requestTarget: undefined,
      jump: { seq, nonce: ++counters.jump, ...(text !== undefined && text.trim() !== '' ? { text } : {}) },
      compare: undefined,
      board: undefined,
      find: undefined,
      branchesOpen: false,
    }),
  inspect: (inspector) => set(inspector ? { inspector, dockTab: 'events' } : { inspector }),
  inspectRequest: (requestTarget) => set(requestTarget ? { requestTarget, dockTab: 'request' } : { requestTarget }),
  jumpTo: (seq) => set({ jump: { seq, nonce: ++counters.jump }, inspector: { kind: 'seq', seq }, dockTab: 'events' }),
  scrollTo: (seq) => set({ jump: { seq, nonce: ++counters.jump } }),
  showLatest: (sessionId) => set({ toLatest: { sessionId, nonce: ++counters.jump } }),
  sessionFocused: () => set({ focusSessionFor: undefined }),
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
  drafts: {},
  tab: 'timeline',
  theme,
  dismissedNotices: {},
  toasts: [],
  imports: [],
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
  setDraft: (sessionId, text) =>
    set((s) => {
      if ((s.drafts[sessionId] ?? '') === text) return {};
      const next: Record<string, string> = { ...s.drafts };
      if (text === '') delete next[sessionId];
      else next[sessionId] = text;
      return { drafts: next };
    }),
  setTab: (tab) => set({ tab }),
  setTheme: (next) => set({ theme: next }),
  dismissNotice: (key) => set((s) => ({ dismissedNotices: { ...s.dismissedNotices, [key]: true } })),
  toast: (text, tone = 'error', detail) => set((s) => ({ toasts: [...s.toasts.slice(-4), { id: ++counters.toast, text, tone, ...(detail ? { detail } : {}) }] })),
  setImportProgress: (key, fileName, fraction) =>
    set((s) => {
      const rest = s.imports.filter((i) => i.key !== key);
      return { imports: fraction === undefined ? rest : [...rest, { key, fileName, fraction }].sort((a, b) => a.key - b.key) };
    }),
  dropToast: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
});

const findSlice = (set: Set): FindSlice => ({
  outlineOpen: false,
  openFind: () => set((s) => ({ find: s.find ?? { query: '', index: 0 } })),
  closeFind: () => set({ find: undefined }),
  setFindQuery: (query) => set({ find: { query, index: 0 } }),
  stepFind: (delta) => set((s) => (s.find ? { find: { query: s.find.query, index: s.find.index + delta } } : {})),
  toggleOutline: () => set((s) => ({ outlineOpen: !s.outlineOpen })),
});

const branchesSlice = (set: Set): BranchesSlice => ({
  branchesOpen: false,
  setBranchesOpen: (branchesOpen) => set(branchesOpen ? { branchesOpen, dockTab: 'branches' } : { branchesOpen }),
  openCompare: (a, b) => {
    if (a === b) return;
    set((s) => ({ compare: { a, b, ...(s.board !== undefined ? { fromBoard: s.board } : {}) }, board: undefined }));
  },
  closeCompare: () => set((s) => ({ compare: undefined, ...(s.compare?.fromBoard !== undefined ? { board: s.compare.fromBoard } : {}) })),
  openBoard: (target) => {
    const ids = [...new Set(target.ids)].slice(0, 8);
    if (ids.length < 2) return;
    // Two branches are the board's 2-column case (its "A/B details" opens the two-way compare).
    set({ board: { ...target, ids }, compare: undefined });
  },
  closeBoard: () => set({ board: undefined }),
});

/** Below this window width (px) an open side panel folds the sidebar to its rail, so the timeline keeps a usable width. */
export const ROOMY_WIDTH = 1200;

/** The sidebar is folded to its rail only to give the timeline room (not by the person). */
export function sidebarFoldedForRoom(s: Pick<LayoutSlice, 'sidebarCollapsed' | 'narrowWindow' | 'dockOpen' | 'sidebarKeptOpen'>): boolean {
  return !s.sidebarCollapsed && s.narrowWindow && s.dockOpen && !s.sidebarKeptOpen;
}

/** The sidebar shows as its narrow rail: hidden by the person, or folded for room. */
export function sidebarFolded(s: Pick<LayoutSlice, 'sidebarCollapsed' | 'narrowWindow' | 'dockOpen' | 'sidebarKeptOpen'>): boolean {
  return s.sidebarCollapsed || sidebarFoldedForRoom(s);
}

const layoutSlice = (set: Set, sidebarCollapsed: boolean): LayoutSlice => ({
  sidebarCollapsed,
  narrowWindow: false,
  dockOpen: false,
  sidebarKeptOpen: false,
  dockTab: 'branches',
  paletteOpen: false,
  folderBrowserOpen: false,
  setupOpen: false,
  setupReason: 'manual',
  setSidebarCollapsed: (collapsed) =>
    set((s) =>
      collapsed ? { sidebarCollapsed: true } : { sidebarCollapsed: false, sidebarKeptOpen: s.sidebarKeptOpen || sidebarFoldedForRoom(s) || (s.sidebarCollapsed && s.narrowWindow && s.dockOpen) },
    ),
  setLayoutFacts: (facts) =>
    set((s) => {
      const narrowWindow = facts.narrowWindow ?? s.narrowWindow;
      const dockOpen = facts.dockOpen ?? s.dockOpen;
      if (narrowWindow === s.narrowWindow && dockOpen === s.dockOpen) return {};
      // Wide again: the next side panel in a narrow window folds the sidebar again.
      return { narrowWindow, dockOpen, ...(narrowWindow ? {} : { sidebarKeptOpen: false }) };
    }),
  setDockTab: (dockTab) => set({ dockTab }),
  openPalette: (paletteOpen) => set({ paletteOpen }),
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
    ...findSlice(set),
    ...layoutSlice(set, options.sidebarCollapsed ?? false),
  }));
}
