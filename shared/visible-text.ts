/**
 * Text from a model, a tool or a file, made visible: safe to print on a terminal and exact where a
 * person must see what it is (an approval's command, path or diff) — docs/security.md "escaped output",
 * docs/tools.md "show the change".
 * Such text may hold escape sequences that move the cursor, erase lines, hide text (`ESC[8m`), set
 * the window title (OSC), or a carriage return that overwrites what was printed, so a hostile string
 * could make the terminal show something other than what is there. Both functions replace every
 * such character by a visible escape: `\r`, `\n`, `\t`, `\xHH` (C0, DEL, C1) and `\uHHHH` (Unicode
 * format characters such as the bidirectional overrides of "Trojan Source", CVE-2021-42574).
 *
 * Pure (no Node, no DOM; the CLI and the renderer share it): strings in, strings out. Our own colours are added around the escaped text, never inside it.
 */

/**
 * Multi-line text (answers, tool output, diffs): newlines and tabs stay; other C0 controls, DEL, C1
 * controls, bidirectional marks/overrides/isolates, word joiners, invisible operators and the BOM
 * are escaped. (Zero-width joiners stay: emoji sequences need them.)
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const MULTILINE_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

/**
 * One-line values (a command to approve, a title, a path, an id): additionally newlines, tabs,
 * every Unicode format character (zero-width spaces and joiners included), line/paragraph
 * separators and every blank other than the plain space, so what is shown is exactly what is there.
 */
const INLINE_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[^\S ]/gu;

function escapeChar(ch: string): string {
  switch (ch) {
    case '\r':
      return '\\r';
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
  }
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** Multi-line text with control characters made visible (newlines and tabs kept). */
export function visibleText(text: string): string {
  return text.replace(MULTILINE_UNSAFE, escapeChar);
}

/** A one-line value with every control, format and non-space blank character made visible. */
export function visibleInline(text: string): string {
  return text.replace(INLINE_UNSAFE, escapeChar);
}

/** True when {@link visibleInline} would change `text` (it holds characters a terminal would not show as they are). */
export function hasInvisibleCharacters(text: string): boolean {
  INLINE_UNSAFE.lastIndex = 0;
  const found = INLINE_UNSAFE.test(text);
  INLINE_UNSAFE.lastIndex = 0;
  return found;
}

/** {@link visibleText} when `keepLines` (newlines and tabs kept), else {@link visibleInline}. */
export function visible(text: string, keepLines = false): string {
  return keepLines ? visibleText(text) : visibleInline(text);
}
