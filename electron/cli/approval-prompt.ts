/**
 * The text of the CLI's approval question (issue 8): what will run, exactly, on a terminal the
 * model's text cannot rewrite. The command (or path, or raw arguments) is shown whole on its own
 * line with every control, format and non-space blank character escaped ({@link visibleInline}),
 * and when there were any the prompt says so, because a command that hides characters is suspect.
 *
 * Pure: question in, string out.
 */
import { hasInvisibleCharacters, visibleInline } from './terminal-escape.js';

/** What the prompt needs to know about the call. */
export interface ApprovalPromptInput {
  readonly toolName: string;
  /** The raw argument string as the model produced it. */
  readonly arguments: string;
  readonly reason?: string;
  /** The folder a command runs in. */
  readonly workspace?: string;
}

/** Raw arguments longer than this (chars) are cut in the prompt, with a note; commands and paths never are. */
const MAX_RAW_ARGUMENTS = 2000;

/**
 * The prompt, ending with `[y/N] ` (no newline). Lines: the question, the command/path/arguments,
 * the folder (for commands), and a warning when anything had to be escaped.
 */
export function approvalPrompt(input: ApprovalPromptInput): string {
  const lines = [`? Allow ${visibleInline(input.toolName)}${input.reason ? ` (${visibleInline(input.reason)})` : ''}?`];
  let shown: { label: string; value: string } | undefined;
  try {
    const args = JSON.parse(input.arguments) as Record<string, unknown> | null;
    if (typeof args?.['command'] === 'string') shown = { label: 'command', value: args['command'] };
    else if (typeof args?.['path'] === 'string') shown = { label: 'path', value: args['path'] };
  } catch {
    // Shown raw below.
  }
  let suspicious: boolean;
  if (shown) {
    suspicious = hasInvisibleCharacters(shown.value);
    lines.push(`    ${shown.label}: ${visibleInline(shown.value)}`);
  } else {
    const raw = input.arguments.length > MAX_RAW_ARGUMENTS ? input.arguments.slice(0, MAX_RAW_ARGUMENTS) : input.arguments;
    suspicious = hasInvisibleCharacters(raw);
    lines.push(`    arguments: ${visibleInline(raw)}${raw.length < input.arguments.length ? ` … (${input.arguments.length - raw.length} more characters)` : ''}`);
  }
  if (shown?.label === 'command' && input.workspace !== undefined) lines.push(`    in: ${visibleInline(input.workspace)}`);
  if (suspicious) lines.push('    ! this holds invisible or control characters, shown above as \\r, \\n, \\t, \\xHH or \\uHHHH escapes');
  return `${lines.join('\n')}\n  [y/N] `;
}
