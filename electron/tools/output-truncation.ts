/**
 * Head + tail truncation of oversized tool output (docs/architecture.md §6): the model sees the start and the end
 * and a notice saying exactly what was omitted and where the full text is, if it was kept.
 */
import { cutHeadUtf8, cutTailUtf8, utf8Length } from '../../shared/text-cut.js';

/**
 * Cuts `text` to at most `capBytes` UTF-8 bytes of content: the first ~60 % and the last ~40 % of
 * the budget, on grapheme boundaries (shared/text-cut.ts), joined by a notice with the omitted byte
 * and line counts.
 * @param savedAt where the full text was saved (mentioned in the notice), if anywhere.
 */
export function truncateHeadTail(text: string, capBytes: number, savedAt?: string): string {
  const totalBytes = utf8Length(text);
  if (totalBytes <= capBytes) return text;
  const headBudget = Math.floor(capBytes * 0.6);
  const tailBudget = capBytes - headBudget;
  const head = cutHeadUtf8(text, headBudget);
  const tail = cutTailUtf8(text, tailBudget);
  const omittedBytes = totalBytes - utf8Length(head) - utf8Length(tail);
  const omittedLines = countLines(text) - countLines(head) - countLines(tail) + 1;
  const where = savedAt ? ` The full output (${totalBytes} bytes) is saved at ${savedAt}.` : '';
  return `${head}\n[… ${omittedBytes} bytes (about ${Math.max(0, omittedLines)} lines) omitted from the middle of this output …${where}]\n${tail}`;
}

function countLines(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
