/**
 * Every action the keyboard reaches, as one list: the command palette (Ctrl/Cmd+K) shows it with
 * each command's shortcut, and the global key handler runs the ones that have a shortcut. Commands
 * are built from a snapshot of the app state plus injected effects (actions, focus moves, file
 * pickers), so the list itself is pure and testable.
 */
import { sidebarFolded, type AppState } from '../state/app-store.js';
import { commandMatchScore } from './command-match.js';
import type { Shortcut } from './shortcut.js';

/** Areas of the window the keyboard can jump to (F6 cycles through the present ones; `search`: the sidebar's search results). */
export type Region = 'sessions' | 'search' | 'compare' | 'timeline' | 'approvals' | 'composer' | 'dock';

export interface Command {
  readonly id: string;
  readonly label: string;
  /** Groups the palette by topic. */
  readonly group: 'Session' | 'View' | 'Go to' | 'App';
  readonly shortcut?: Shortcut;
  /** A key that works only inside one area (shown as a hint, e.g. "A in the approval panel"). */
  readonly hint?: string;
  readonly run: () => void;
}

/** Effects the commands need; the view layer supplies them. */
export interface CommandEffects {
  newSession(): void;
  cancel(sessionId: string): void;
  fork(sessionId: string, worktree: boolean): void;
  compareWithParent(sessionId: string): void;
  /** Opens the fan-out form under the open session's last finished turn (issue 21). */
  fanOut(sessionId: string): void;
  /** "Replay on this build" (issue 23): the open session's logged answers fed to this build; the result shows on the timeline. */
  replay(sessionId: string): void;
  /** "Continue in Forkline" on the open imported session's banner (asks for a folder, then forks it there). */
  continueImported(): void;
  /** Opens the request inspector's "Edit and send" tab (the request playground) on the inspected request. */
  editAndSend(): void;
  /** Opens the request inspector on the open session's last step that has a request. */
  inspectLastRequest(): void;
  compact(sessionId: string): void;
  exportSession(sessionId: string): void;
  importSession(): void;
  /** Opens the folder picker for a session kept as a folder (Cline / Roo Code, opencode). */
  importFolder(): void;
  focus(region: Region): void;
  /** Moves focus to the next (+1) or previous (−1) area. */
  cycle(direction: 1 | -1): void;
  /** Focuses the find bar's field (once it is rendered). */
  focusFind(): void;
  /** Dismisses the toast holding focus, else the newest one. */
  dismissToast(): void;
}

/** What the commands read besides the app state. */
export interface CommandFacts {
  readonly state: AppState;
  /** The open session's agent is running. */
  readonly running: boolean;
  readonly readOnly: boolean;
  /** The open session was imported from another agent's log (continued by "Continue in Forkline"). */
  readonly imported?: boolean;
  /** Approvals are pending in the open session. */
  readonly approvalsPending: boolean;
  /** Keyboard focus is in a toast (its Esc dismisses that toast before closing a view behind it). */
  readonly toastFocused?: boolean;
}

export const SHORTCUTS = {
  palette: { key: 'k', mod: true },
  newSession: { key: 'n', mod: true },
  find: { key: 'f', mod: true },
  cancel: { key: 'Escape' },
  sidebar: { key: 'b', mod: true },
  settings: { key: ',', mod: true },
  nextRegion: { key: 'F6' },
  previousRegion: { key: 'F6', shift: true },
  steer: { key: 'Enter', mod: true },
  fanOut: { key: 'o', mod: true, shift: true },
} as const satisfies Record<string, Shortcut>;

/** The commands that apply now, in palette order. */
export function buildCommands(facts: CommandFacts, effects: CommandEffects): Command[] {
  const s = facts.state;
  // The session in front: none while the compare view or the board covers it (Esc there must not cancel its turn).
  const open = s.selectedId !== undefined && s.compare === undefined && s.board === undefined ? s.selectedId : undefined;
  const summary = open !== undefined ? s.sessions.find((x) => x.id === open) : undefined;
  const out: Command[] = [];
  const add = (c: Command | false | undefined): void => {
    if (c) out.push(c);
  };

  add({ id: 'new-session', label: 'New session…', group: 'Session', shortcut: SHORTCUTS.newSession, run: effects.newSession });
  add(open !== undefined && facts.running && { id: 'cancel', label: 'Cancel the running turn', group: 'Session', shortcut: SHORTCUTS.cancel, run: () => effects.cancel(open) });
  // Esc closes the innermost thing focus is in: a toast holding focus goes before the compare view
  // or board behind it (the strip is not part of them); with focus elsewhere, the view goes first.
  const dismissToast: Command | false = s.toasts.length > 0 && {
    id: 'dismiss-toast',
    label: 'Dismiss the newest message (toast)',
    group: 'View',
    shortcut: SHORTCUTS.cancel,
    run: effects.dismissToast,
  };
  if (facts.toastFocused === true) add(dismissToast);
  // In the compare view Esc goes back to the open session (no turn can be cancelled from there).
  add(s.compare !== undefined && { id: 'close-compare', label: 'Close the comparison', group: 'View', shortcut: SHORTCUTS.cancel, run: () => s.closeCompare() });
  add(s.board !== undefined && s.compare === undefined && { id: 'close-board', label: 'Close the board', group: 'View', shortcut: SHORTCUTS.cancel, run: () => s.closeBoard() });
  // Esc with no turn to cancel and no comparison to close: the newest toast goes (README "Toasts").
  if (facts.toastFocused !== true) add(dismissToast);
  add(
    open !== undefined &&
      facts.approvalsPending && {
        id: 'go-approvals',
        label: 'Go to the pending approval',
        group: 'Session',
        hint: 'then A allow · S allow for session · R reject',
        run: () => effects.focus('approvals'),
      },
  );
  add(
    open !== undefined &&
      facts.imported === true && {
        id: 'continue-imported',
        label: 'Continue in Forkline: fork this imported log into a workspace you choose',
        group: 'Session',
        run: effects.continueImported,
      },
  );
  add(open !== undefined && !facts.readOnly && { id: 'fork', label: 'Fork after the last finished turn', group: 'Session', run: () => effects.fork(open, false) });
  add(open !== undefined && !facts.readOnly && { id: 'fork-worktree', label: 'Fork into its own folder after the last finished turn', group: 'Session', run: () => effects.fork(open, true) });
  add(
    open !== undefined &&
      !facts.running &&
      !facts.readOnly && { id: 'fan-out', label: 'Fan out… (2–8 branches from the last finished turn, on a board)', group: 'Session', shortcut: SHORTCUTS.fanOut, run: () => effects.fanOut(open) },
  );
  add(open !== undefined && { id: 'replay', label: 'Replay on this build (where would this build act differently?)', group: 'Session', run: () => effects.replay(open) });
  add(open !== undefined && s.requestTarget !== undefined && { id: 'edit-and-send', label: 'Edit and send the inspected request (playground)', group: 'Session', run: effects.editAndSend });
  add(summary?.parentSession !== undefined && { id: 'compare-parent', label: 'Compare with the parent session', group: 'Session', run: () => effects.compareWithParent(summary.id) });
  add(open !== undefined && !facts.running && !facts.readOnly && { id: 'compact', label: 'Compact what the model sees', group: 'Session', run: () => effects.compact(open) });
  add(summary !== undefined && { id: 'rename', label: 'Rename session…', group: 'Session', hint: 'F2 in the session list', run: () => s.editSession({ sessionId: summary.id, kind: 'rename' }) });
  add(summary !== undefined && { id: 'export', label: 'Export session as JSONL', group: 'Session', run: () => effects.exportSession(summary.id) });
  add(
    summary !== undefined && {
      id: 'export-bundle',
      label: 'Export bundle… (the session, its forks and optionally their files)',
      group: 'Session',
      run: () => s.editSession({ sessionId: summary.id, kind: 'bundle' }),
    },
  );
  add(summary !== undefined && { id: 'delete', label: 'Delete session…', group: 'Session', hint: 'Delete in the session list', run: () => s.editSession({ sessionId: summary.id, kind: 'delete' }) });
  add({ id: 'import', label: 'Import a session log (.jsonl)…', group: 'Session', run: effects.importSession });
  add({ id: 'import-folder', label: 'Import a session folder (Cline, Roo Code, opencode)…', group: 'Session', run: effects.importFolder });

  add(
    open !== undefined && {
      id: 'find',
      label: 'Find in this session',
      group: 'View',
      shortcut: SHORTCUTS.find,
      run: () => {
        s.setTab('timeline');
        s.openFind();
        effects.focusFind();
      },
    },
  );
  add(open !== undefined && { id: 'tab-timeline', label: 'Show the timeline', group: 'View', run: () => s.setTab('timeline') });
  add(open !== undefined && { id: 'tab-terminal', label: 'Show the terminal', group: 'View', run: () => s.setTab('terminal') });
  add(open !== undefined && { id: 'outline', label: s.outlineOpen ? 'Hide the outline' : 'Show the outline (the turns of this session)', group: 'View', run: s.toggleOutline });
  add(open !== undefined && { id: 'inspect-request', label: 'Inspect the last request (request inspector)', group: 'View', run: effects.inspectLastRequest });
  add(open !== undefined && { id: 'log-events', label: s.showLogEvents ? 'Hide log-only events' : 'Show log-only events', group: 'View', run: s.toggleLogEvents });
  add(open !== undefined && { id: 'model-view', label: s.modelView ? 'Show the full log' : 'Show what the model sees', group: 'View', run: s.toggleModelView });
  add(
    s.selectedId !== undefined && {
      id: 'branches',
      label: s.branchesOpen ? 'Hide branches' : 'Show branches (the fork tree: tick 2–8 to compare)',
      group: 'View',
      run: () => {
        s.setBranchesOpen(!s.branchesOpen);
        // Opened, the panel takes focus (its open node), as the other side panels do; never the sidebar's rail.
        if (!s.branchesOpen) effects.focus('dock');
      },
    },
  );
  add(s.compare !== undefined && { id: 'close-compare', label: 'Close the compare view', group: 'View', run: s.closeCompare });
  const folded = sidebarFolded(s);
  add({ id: 'sidebar', label: folded ? 'Show the sidebar' : 'Hide the sidebar', group: 'View', shortcut: SHORTCUTS.sidebar, run: () => s.setSidebarCollapsed(!folded) });
  add({ id: 'theme', label: s.theme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme', group: 'View', run: () => s.setTheme(s.theme === 'dark' ? 'light' : 'dark') });

  add({ id: 'go-sessions', label: 'Go to the session list', group: 'Go to', hint: '↑ ↓ choose · Enter open · F2 rename · Delete', run: () => effects.focus('sessions') });
  add(open !== undefined && { id: 'go-timeline', label: 'Go to the timeline', group: 'Go to', hint: '↑ ↓ rows · → ← expand/fold · Enter inspect', run: () => effects.focus('timeline') });
  add(open !== undefined && !facts.readOnly && { id: 'go-composer', label: 'Go to the composer', group: 'Go to', run: () => effects.focus('composer') });
  add({ id: 'next-area', label: 'Next area', group: 'Go to', shortcut: SHORTCUTS.nextRegion, run: () => effects.cycle(1) });
  add({ id: 'previous-area', label: 'Previous area', group: 'Go to', shortcut: SHORTCUTS.previousRegion, run: () => effects.cycle(-1) });

  add({ id: 'settings', label: 'Settings…', group: 'App', shortcut: SHORTCUTS.settings, run: () => s.openSettings(true) });
  add({ id: 'setup', label: 'Set up a model provider…', group: 'App', run: () => s.openSetup(true) });
  return out;
}

/**
 * Commands matching every word of `query` (case-insensitive), best match first: a word of the
 * title ("Show branches") before a word only in the description ("Fan out… (2–8 branches …)"), a
 * whole word before its start, the label before the group or key hint (command-match.ts); equal
 * matches keep the list order. An empty query keeps every command in list order.
 */
export function filterCommands(commands: readonly Command[], query: string): Command[] {
  return commands
    .map((command, index) => ({ command, index, score: commandMatchScore(query, command.label, `${command.group} ${command.hint ?? ''}`) }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((m) => m.command);
}
