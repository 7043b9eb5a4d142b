/**
 * The terminal approval prompt of `forkline run` / `resume` (docs/tools.md: show the change): what the
 * call will do — the unified diff of a file change, or the exact command and the folder it runs in —
 * then the question, with "allow for this session" (for bash: commands starting with the suggested
 * prefix). Pure: the question in, text out; the answer text in, a decision out.
 *
 * Everything shown is made visible: control characters (ESC, CR, BEL, …) in a command, a path or a
 * diff line are printed as escapes (`\x1b`, `\r`), so text from the model cannot redraw the terminal
 * or fake a prompt (docs/security.md).
 */
import type { ApprovalPreview } from '../../shared/approval.js';
import { hasInvisibleCharacters, visible } from '../../shared/visible-text.js';
import type { ApprovalDecision, PendingApproval } from '../agent/approval-gate.js';

/** Diff lines shown before the rest is summarised. */
export const PROMPT_MAX_DIFF_LINES = 120;

const ANSI = { dim: '\x1b[2m', bold: '\x1b[1m', red: '\x1b[31m', green: '\x1b[32m', cyan: '\x1b[36m', reset: '\x1b[0m' };

/** The prompt text: what the call does, then the question (no trailing newline: the answer follows). */
export function approvalPromptText(question: PendingApproval, color: boolean): string {
  const paint = (code: keyof typeof ANSI, text: string) => (color ? `${ANSI[code]}${text}${ANSI.reset}` : text);
  const lines: string[] = [];
  const preview = question.preview;
  if (preview?.kind === 'diff') {
    lines.push(
      `? ${question.toolName} wants to ${preview.created ? 'create' : 'change'} ${paint('bold', visible(preview.path))} (${paint('green', `+${preview.added}`)} ${paint('red', `-${preview.removed}`)}):`,
    );
    lines.push(...diffLines(preview, paint));
    if (preview.note) lines.push(paint('dim', `  (${visible(preview.note)})`));
  } else if (preview?.kind === 'command') {
    lines.push(`? ${question.toolName} wants to run a command:`);
    lines.push(`  $ ${paint('bold', visible(preview.command))}`);
    lines.push(`  in ${visible(preview.cwd)}`);
  } else {
    lines.push(`? ${question.toolName} (${question.reason}) with ${visible(question.arguments.length > 2000 ? `${question.arguments.slice(0, 2000)}…` : question.arguments)}`);
  }
  if (hasHiddenCharacters(question)) lines.push('  ! this holds invisible or control characters, shown above as \\r, \\n, \\t, \\xHH or \\uHHHH escapes');
  const session = sessionChoice(question);
  lines.push(`  Allow? [y]es once${session !== undefined ? ` / [a] ${session}` : ''} / [N]o `);
  return lines.join('\n');
}

/** True when what the prompt shows had to be escaped (a command that hides characters is suspect). */
function hasHiddenCharacters(question: PendingApproval): boolean {
  const preview = question.preview;
  if (preview?.kind === 'command') return hasInvisibleCharacters(preview.command) || hasInvisibleCharacters(preview.cwd);
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (preview?.kind === 'diff') return hasInvisibleCharacters(preview.path) || /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(preview.patch);
  return hasInvisibleCharacters(question.arguments);
}

/** The "allow for this session" choice offered, or undefined when none can be offered. */
function sessionChoice(question: PendingApproval): string | undefined {
  const preview = question.preview;
  if (preview?.kind === 'command') {
    return preview.suggestedPrefix === '' ? undefined : `allow \`${visible(preview.suggestedPrefix)}\` commands for this session`;
  }
  if (question.toolName === 'bash') return undefined;
  return `allow ${question.toolName} for this session`;
}

/** The decision for an answer: `y`/`yes` once, `a`/`always` for the session (when offered), anything else no. */
export function parseApprovalAnswer(answer: string, question: PendingApproval): ApprovalDecision {
  const a = answer.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return { outcome: 'allowed-once' };
  if ((a === 'a' || a === 'always') && sessionChoice(question) !== undefined) {
    const preview = question.preview;
    return preview?.kind === 'command' ? { outcome: 'allowed-session', commandPrefix: preview.suggestedPrefix } : { outcome: 'allowed-session' };
  }
  return { outcome: 'rejected' };
}

function diffLines(preview: Extract<ApprovalPreview, { kind: 'diff' }>, paint: (code: keyof typeof ANSI, text: string) => string): string[] {
  const all = preview.patch.replace(/\n$/, '').split('\n');
  // Skip the `Index:`/`===` header lines jsdiff writes; keep ---/+++ and the hunks.
  const body = all.filter((line) => !line.startsWith('Index: ') && !/^=+$/.test(line));
  const shown = body.slice(0, PROMPT_MAX_DIFF_LINES).map((line) => {
    const text = visible(line, true);
    if (line.startsWith('+++') || line.startsWith('---')) return `  ${paint('bold', text)}`;
    if (line.startsWith('@@')) return `  ${paint('cyan', text)}`;
    if (line.startsWith('+')) return `  ${paint('green', text)}`;
    if (line.startsWith('-')) return `  ${paint('red', text)}`;
    return `  ${text}`;
  });
  if (body.length > shown.length) shown.push(paint('dim', `  … ${body.length - shown.length} more lines of the diff`));
  return shown;
}
