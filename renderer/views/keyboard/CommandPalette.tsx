/**
 * The command palette (Ctrl/Cmd+K): every action that applies now, with its shortcut, filtered by
 * the words typed. ↑/↓ choose, Enter runs, Esc closes. A combobox over a listbox (WAI-ARIA APG
 * "combobox with listbox popup"), so a screen reader follows the highlighted command.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { filterCommands, type Command } from '../../keyboard/commands.js';
import { shortcutLabel } from '../../keyboard/shortcut.js';
import { useApp } from '../context.js';
import { Dialog } from '../Dialog.js';
import { PLATFORM } from './use-commands.js';

export function CommandPalette({ commands }: { readonly commands: readonly Command[] }): ReactNode {
  const openPalette = useApp((s) => s.openPalette);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const shown = useMemo(() => filterCommands(commands, query), [commands, query]);
  const index = Math.min(active, Math.max(0, shown.length - 1));

  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${index}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [index]);

  const close = (): void => openPalette(false);
  const run = (command: Command | undefined): void => {
    if (!command) return;
    close();
    // After the palette has closed and handed focus back, so the command's own focus moves win.
    setTimeout(command.run, 0);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = shown.length;
      if (n > 0) setActive((index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setActive(e.key === 'Home' ? 0 : Math.max(0, shown.length - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      run(shown[index]);
    }
  };

  return (
    <Dialog title="Commands" testId="command-palette" onClose={close} className="palette">
      <input
        className="palette-input"
        data-testid="command-palette-input"
        role="combobox"
        aria-expanded="true"
        aria-controls="command-palette-list"
        aria-activedescendant={shown.length > 0 ? `command-${shown[index]!.id}` : undefined}
        aria-autocomplete="list"
        aria-label="Type a command"
        placeholder="Type a command…"
        autoFocus
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul className="palette-list" id="command-palette-list" role="listbox" aria-label="Commands" ref={listRef}>
        {shown.length === 0 && (
          <li className="palette-empty muted" role="presentation">
            No command matches “{query}”.
          </li>
        )}
        {shown.map((c, i) => (
          <li
            key={c.id}
            id={`command-${c.id}`}
            role="option"
            aria-selected={i === index}
            data-index={i}
            data-testid="command-palette-item"
            data-command={c.id}
            className={`palette-item${i === index ? ' active' : ''}`}
            onMouseMove={() => i !== index && setActive(i)}
            onClick={() => run(c)}
          >
            <span className="palette-label">{c.label}</span>
            {c.hint && <span className="palette-hint">{c.hint}</span>}
            <span className="spacer" />
            {c.shortcut && <kbd className="kbd">{shortcutLabel(c.shortcut, PLATFORM)}</kbd>}
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
