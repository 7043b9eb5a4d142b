/**
 * The command list for the current moment: app state, the open session's facts (running,
 * read-only, pending approvals) and the effects (actions, focus moves, downloads) wired to the DOM.
 */
import { useCallback, useMemo } from 'react';
import { buildCommands, type Command, type CommandEffects } from '../../keyboard/commands.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { cycleRegion, regionTarget } from '../../keyboard/focus-regions.js';
import { platformOf, type Platform } from '../../keyboard/shortcut.js';
import { useOpenSession, useRuntime } from '../context.js';
import { download } from '../download.js';
import { describeError } from '../../host/host-client.js';
import { requestInspectorTab, runReplay } from '../../state/replay-store.js';
import { sidebarFolded } from '../../state/app-store.js';

/** The platform for shortcut matching and labels. */
export const PLATFORM: Platform = typeof navigator === 'undefined' ? 'other' : platformOf(`${navigator.platform} ${navigator.userAgent}`);

/** Returns a function that builds the commands from the state at the moment it is called. */
export function useCommands(): () => Command[] {
  const runtime = useRuntime();
  const session = useOpenSession();
  const effects = useMemo<CommandEffects>(
    () => ({
      newSession: () => void runtime.actions.newSession(),
      cancel: (id) => void runtime.actions.cancel(id),
      fork: (id, worktree) => void runtime.actions.fork(id, { worktree }),
      compareWithParent: (id) => runtime.actions.compareWithParent(id),
      // The form belongs to a turn end's row: open the last finished one's (the timeline shows its tail).
      fanOut: () => {
        const buttons = document.querySelectorAll<HTMLButtonElement>('[data-testid="turn-end"] [data-testid="fanout-button"]:not(:disabled)');
        const last = buttons[buttons.length - 1];
        if (!last) {
          runtime.app.getState().toast('No finished turn to fan out from yet: fan-out starts from a turn end.', 'info');
          return;
        }
        last.scrollIntoView({ block: 'nearest' });
        last.click();
      },
      replay: (id) => {
        // Run after the palette handed focus back: the result takes it from there.
        const from = document.activeElement;
        void runReplay(runtime.client, id, describeError, session?.controller.store.getState().lastSeq).then(() => focusAfterRender(byTestId('replay-banner-focus', 'replay-button'), { from }));
      },
      continueImported: () => {
        const button = document.querySelector<HTMLButtonElement>('[data-testid="continue-in-forkline"]:not(:disabled)');
        if (!button) {
          runtime.app.getState().toast('This imported session cannot be continued yet (see its banner).', 'info');
          return;
        }
        button.focus();
        button.click();
      },
      editAndSend: () => {
        requestInspectorTab('playground');
        focusAfterRender(byTestId('playground-system'), { from: document.activeElement });
      },
      inspectLastRequest: () => {
        // The newest step of the open session's timeline (the timeline is a virtual list: its row may not be on screen).
        const facts = session?.controller.store.getState();
        const rows = facts ? session!.projector.project(facts.events, facts.prelude).rows : [];
        const step = rows.findLast((r) => r.kind === 'step');
        if (step?.kind !== 'step') {
          runtime.app.getState().toast('No request to inspect in this session yet.', 'info');
          return;
        }
        runtime.app.getState().inspectRequest({ turn: step.turn, step: step.step });
        focusAfterRender(byTestId('request-inspector-close'), { from: document.activeElement });
      },
      compact: (id) => void runtime.actions.compact(id),
      exportSession: (id) => void runtime.actions.exportSession(id, download),
      importSession: () => document.querySelector<HTMLInputElement>('[data-testid="import-session-input"]')?.click(),
      importFolder: () => document.querySelector<HTMLInputElement>('[data-testid="import-folder-input"]')?.click(),
      focus: (region) => {
        if (region === 'sessions' && sidebarFolded(runtime.app.getState())) runtime.app.getState().setSidebarCollapsed(false);
        // After React has rendered what the command may have opened.
        focusAfterRender(regionTarget(region), { from: document.activeElement });
      },
      cycle: (direction) => cycleRegion(direction),
      focusFind: () => focusAfterRender(byTestId('find-input'), { from: document.activeElement }),
      dismissToast: () => {
        const state = runtime.app.getState();
        const held = document.activeElement?.closest<HTMLElement>('[data-testid="toast"]')?.dataset['toastId'];
        const id = held !== undefined ? Number(held) : state.toasts.at(-1)?.id;
        if (id !== undefined) state.dropToast(id);
      },
    }),
    [runtime, session],
  );
  return useCallback(() => {
    const facts = session?.controller.store.getState();
    const state = runtime.app.getState();
    return buildCommands(
      {
        state,
        running: facts?.status === 'running',
        readOnly: facts?.readOnly ?? false,
        imported: facts?.imported !== undefined,
        approvalsPending: (facts?.approvals.length ?? 0) > 0,
        toastFocused: typeof document !== 'undefined' && (document.activeElement?.closest('[data-testid="toast"]') ?? null) !== null,
      },
      effects,
    );
  }, [runtime, session, effects]);
}
