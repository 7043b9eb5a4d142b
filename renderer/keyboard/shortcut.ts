/**
 * Keyboard shortcuts as data: matching a key event against a shortcut and labelling it for the
 * platform (`Ctrl+K` on Linux/Windows, `⌘K` on macOS). `mod` is Cmd on macOS and Ctrl elsewhere,
 * the usual convention of desktop apps (and of Electron's `CommandOrControl` accelerator).
 * Pure: takes the platform as a parameter; no DOM access.
 */

/** One key combination. `key` is `KeyboardEvent.key`, compared case-insensitively for letters. */
export interface Shortcut {
  readonly key: string;
  /** Cmd on macOS, Ctrl elsewhere. */
  readonly mod?: boolean;
  readonly shift?: boolean;
  readonly alt?: boolean;
}

export type Platform = 'mac' | 'other';

/** The fields of a KeyboardEvent that matching reads. */
export interface KeyLike {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
  readonly altKey: boolean;
}

/** The platform from `navigator.platform` / `userAgent` text. */
export function platformOf(text: string): Platform {
  return /Mac|iPhone|iPad/i.test(text) ? 'mac' : 'other';
}

/** True when `event` is exactly `shortcut` (no extra modifiers). */
export function matchesShortcut(event: KeyLike, shortcut: Shortcut, platform: Platform): boolean {
  const mod = platform === 'mac' ? event.metaKey : event.ctrlKey;
  const other = platform === 'mac' ? event.ctrlKey : event.metaKey;
  if (mod !== Boolean(shortcut.mod) || other) return false;
  if (event.altKey !== Boolean(shortcut.alt)) return false;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const want = shortcut.key.length === 1 ? shortcut.key.toLowerCase() : shortcut.key;
  // Shift changes printable keys ("," → "<"), so for those only the base key is compared when shift is wanted.
  if (event.shiftKey !== Boolean(shortcut.shift)) return false;
  return key === want;
}

const KEY_NAMES: Readonly<Record<string, string>> = {
  Escape: 'Esc',
  Enter: 'Enter',
  ArrowUp: '↑',
  ArrowDown: '↓',
  ArrowLeft: '←',
  ArrowRight: '→',
  Delete: 'Del',
  ' ': 'Space',
};

/** A readable label: `Ctrl+Shift+K`, `⌘⇧K`, `Esc`, `F6`. */
export function shortcutLabel(shortcut: Shortcut, platform: Platform): string {
  const key = KEY_NAMES[shortcut.key] ?? (shortcut.key.length === 1 ? shortcut.key.toUpperCase() : shortcut.key);
  if (platform === 'mac') return `${shortcut.alt ? '⌥' : ''}${shortcut.shift ? '⇧' : ''}${shortcut.mod ? '⌘' : ''}${key}`;
  return [shortcut.mod ? 'Ctrl' : '', shortcut.alt ? 'Alt' : '', shortcut.shift ? 'Shift' : '', key].filter(Boolean).join('+');
}

/** True when the event target is a place where typed characters are text (inputs, textareas, editable content, the terminal). */
export function isTextTarget(target: EventTarget | null): boolean {
  const el = target as { tagName?: string; isContentEditable?: boolean; type?: string; closest?: (s: string) => unknown } | null;
  if (!el || typeof el.tagName !== 'string') return false;
  if (el.isContentEditable) return true;
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  if (el.tagName === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(el.type ?? 'text');
  return typeof el.closest === 'function' && el.closest('.xterm') !== null;
}

/** Input types that take no typed text (their Esc is nobody's but the area around them). */
const NOT_TEXT_INPUTS = ['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image'];

/**
 * The text of a field a person types into (a text-like input, a textarea), or undefined for
 * anything else — a checkbox, a drop-down, a button. A field holding text keeps Esc to itself in
 * the side dock (README "Keyboard"); everything else there closes the panel.
 */
export function typedText(target: EventTarget | null): string | undefined {
  const el = target as { tagName?: string; type?: string; value?: unknown } | null;
  if (!el || typeof el.tagName !== 'string') return undefined;
  if (el.tagName === 'TEXTAREA') return String(el.value ?? '');
  if (el.tagName === 'INPUT' && !NOT_TEXT_INPUTS.includes(el.type ?? 'text')) return String(el.value ?? '');
  return undefined;
}
