/**
 * Head + tail truncation of oversized tool output (DESIGN §6): the model sees the start and the end
 * and a notice saying exactly what was omitted and where the full text is, if it was kept.
 */

/**
 * Cuts `text` to at most `capBytes` UTF-8 bytes of content: the first ~60 % and the last ~40 % of
 * the budget, on character boundaries, joined by a notice with the omitted byte and line counts.
 * @param savedAt where the full text was saved (mentioned in the notice), if anywhere.
 */
export function truncateHeadTail(text: string, capBytes: number, savedAt?: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= capBytes) return text;
  const headBudget = Math.floor(capBytes * 0.6);
  const tailBudget = capBytes - headBudget;
  const head = sliceUtf8(bytes, 0, headBudget);
  const tail = sliceUtf8(bytes, bytes.length - tailBudget, bytes.length);
  const omittedBytes = bytes.length - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const omittedLines = countLines(text) - countLines(head) - countLines(tail) + 1;
  const where = savedAt ? ` The full output (${bytes.length} bytes) is saved at ${savedAt}.` : '';
  return `${head}\n[… ${omittedBytes} bytes (about ${Math.max(0, omittedLines)} lines) omitted from the middle of this output …${where}]\n${tail}`;
}

/** Decodes bytes [start, end) without splitting a multi-byte character (partial ones are dropped). */
function sliceUtf8(bytes: Buffer, start: number, end: number): string {
  let s = Math.max(0, start);
  let e = Math.min(bytes.length, end);
  while (s < e && (bytes[s]! & 0xc0) === 0x80) s++;
  while (e > s && e < bytes.length && (bytes[e]! & 0xc0) === 0x80) e--;
  return bytes.subarray(s, e).toString('utf8');
}

function countLines(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
