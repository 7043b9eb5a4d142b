/** Session titles made from prompts (the host's followup and the fan-out's branches). */
import { cutHead } from '../../../shared/text-cut.js';

/** A short title from a prompt: its first line, at most 60 characters. */
export function titleFromPrompt(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > 60 ? `${cutHead(line, 57)}…` : line || 'Session';
}
