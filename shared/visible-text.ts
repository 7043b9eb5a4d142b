/**
 * Making invisible characters visible, for showing text that came from a model, a tool or a file
 * where a person must see exactly what it is (an approval's command, path or diff). Control
 * characters would otherwise redraw a terminal (ESC sequences, CR) or vanish in the UI.
 *
 * Pure: no Node, no DOM.
 */

/** Zero-width and bidirectional-formatting characters that change how text reads without showing (Unicode TR #9; "Trojan Source"). */
function isInvisibleFormat(code: number): boolean {
  return (code >= 0x200b && code <= 0x200f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff || code === 0x061c;
}

/**
 * `text` with C0/C1 control characters, DEL, line/paragraph separators and invisible formatting
 * characters (zero-width, bidi overrides) written as escapes (`\x1b`, `\r`, `\u{202e}`); newlines
 * and tabs are kept when `keepLines`.
 */
export function visible(text: string, keepLines = false): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const control = code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0x2028 || code === 0x2029 || isInvisibleFormat(code);
    if (!control || (keepLines && (ch === '\n' || ch === '\t'))) {
      out += ch;
      continue;
    }
    out += ch === '\r' ? '\\r' : ch === '\n' ? '\\n' : ch === '\t' ? '\\t' : ch === '\x1b' ? '\\x1b' : `\\u{${code.toString(16)}}`;
  }
  return out;
}

