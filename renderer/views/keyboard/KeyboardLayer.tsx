/**
 * Window-wide keys: runs every command that has a shortcut (see keyboard/commands.ts) and shows the
 * command palette. Keys handled by a focused control first (Escape in a rename field or the find
 * bar, Enter in the composer) call `preventDefault` and are left alone here. While a modal dialog is
 * open only the palette key works. Escape in a text field (search, paths) and in the terminal
 * belongs to it — except in the composer, where it cancels the run; Ctrl/Cmd+K and F6 work
 * everywhere, so focus can always leave the terminal.
 */
import { useEffect, type ReactNode } from 'react';
import { SHORTCUTS } from '../../keyboard/commands.js';
import { cycleRegion } from '../../keyboard/focus-regions.js';
import { isTextTarget, matchesShortcut } from '../../keyboard/shortcut.js';
import { useApp, useRuntime } from '../context.js';
import { CommandPalette } from './CommandPalette.js';
import { PLATFORM, useCommands } from './use-commands.js';

function inTerminal(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('.xterm') !== null;
}

export function KeyboardLayer(): ReactNode {
  const runtime = useRuntime();
  const getCommands = useCommands();
  const paletteOpen = useApp((s) => s.paletteOpen);

  useEffect(() => {
    const togglePalette = (e: KeyboardEvent): void => {
      e.preventDefault();
      e.stopPropagation();
      const state = runtime.app.getState();
      state.openPalette(!state.paletteOpen);
    };
    // Capture phase: escape hatches that must work even where a control keeps keys to itself.
    const onCapture = (e: KeyboardEvent): void => {
      if (e.isComposing) return;
      if (matchesShortcut(e, SHORTCUTS.palette, PLATFORM)) return togglePalette(e);
      if (inTerminal(e.target) && (matchesShortcut(e, SHORTCUTS.nextRegion, PLATFORM) || matchesShortcut(e, SHORTCUTS.previousRegion, PLATFORM))) {
        e.preventDefault();
        e.stopPropagation();
        cycleRegion(e.shiftKey ? -1 : 1);
      }
    };
    const onBubble = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.isComposing) return;
      if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
      // Escape belongs to the field being typed in (a search box clears itself), except in the composer, where it cancels the run,
      // and on a closed drop-down (an open one keeps its keys to itself), where it means what it means elsewhere.
      if (e.key === 'Escape' && isTextTarget(e.target) && !(e.target instanceof HTMLSelectElement) && !(e.target instanceof Element && e.target.closest('[data-region="composer"]'))) return;
      for (const command of getCommands()) {
        if (command.shortcut && matchesShortcut(e, command.shortcut, PLATFORM)) {
          e.preventDefault();
          command.run();
          return;
        }
      }
    };
    window.addEventListener('keydown', onCapture, true);
    window.addEventListener('keydown', onBubble);
    return () => {
      window.removeEventListener('keydown', onCapture, true);
      window.removeEventListener('keydown', onBubble);
    };
  }, [runtime, getCommands]);

  return paletteOpen ? <CommandPalette commands={getCommands()} /> : null;
}
