/**
 * The words each timeline row kind shows, in one place: the row views (TimelineRowView.tsx) render
 * these labels, and in-session find searches {@link rowSearchText} — built from the same labels —
 * so every row a person can read is one find can reach. The switch in {@link rowSearchText} is
 * exhaustive (a `never` default): a new row kind does not typecheck until it says what it shows.
 *
 * Pure: no DOM, no React.
 */
import { clockTime, usageLabel } from '../../../shared/format.js';
import { formatUsd } from '../../../shared/pricing.js';
import type { CrashBadge, ElidedRow, InstructionsRow, TimelineRow, TurnEndRow, TurnRow, WarningRow } from '../../../shared/timeline.js';
import { visible } from '../../../shared/visible-text.js';
import { approvalLabel, stepFinishLabel, turnDurationLabel } from './trust-labels.js';

/** What a row's text can depend on besides the row: the session's header. */
export interface RowTextContext {
  /** Length of the history a fork inherited (`SessionHeader.seedLength`): its end-seed row is the fork boundary. */
  readonly seedLength?: number;
}

/** Crash-badge words (badges.tsx shows them on the row). */
export const CRASH_LABEL: Readonly<Record<CrashBadge, string>> = { 'not-started': 'not started', 'outcome-unknown': 'outcome unknown', interrupted: 'interrupted' };

/** Who a user-side message is from, by its source kind. */
export const SOURCE_LABEL: Readonly<Record<string, string>> = { steer: 'steering', inject: 'injected context', plugin: 'context', compaction: 'compaction summary' };

/** The head of a user-side message ("You", "steering", …). */
export function sourceLabel(sourceKind: string): string {
  return sourceKind === 'user' ? 'You' : (SOURCE_LABEL[sourceKind] ?? sourceKind);
}

/** The end of a turn's rule line: how it ended (with its duration), or that it runs. */
export function turnRuleEnd(row: TurnRow): string {
  if (!row.ended) return 'running…';
  const duration = row.end ? turnDurationLabel({ end: row.end, ...(row.durationMs !== undefined ? { durationMs: row.durationMs } : {}) }) : undefined;
  return `${row.endLabel ?? ''}${duration ? ` · ${duration.text}` : ''}`;
}

/** "N steps". */
export function stepsLabel(steps: number): string {
  return `${steps} step${steps === 1 ? '' : 's'}`;
}

/** What the turn-end row says the turn ended with (a crash badge's words, else the end's label). */
export function turnEndReason(row: TurnEndRow): string {
  return row.crash ? CRASH_LABEL[row.crash] : row.label;
}

/** The cost cell of a turn-end row. */
export function turnEndCost(cost: NonNullable<TurnEndRow['cost']>): string {
  return cost.usd !== undefined ? formatUsd(cost.usd) : cost.knownUsd > 0 ? `≥ ${formatUsd(cost.knownUsd)} (${cost.unknownCount} unpriced)` : 'price unknown';
}

/** The line of an end-seed row: a fork boundary, or where a resumed run began. */
export function endSeedLabel(fork: boolean): string {
  return fork ? 'fork boundary: history above is inherited from the parent session' : 'resumed here: history above came from an earlier run';
}

/** Whether an end-seed row at `seq` is the fork boundary. */
export function isForkBoundary(seq: number, context: RowTextContext): boolean {
  return context.seedLength !== undefined && seq === context.seedLength;
}

/** The line of an elided row ("⋯ seq 4–9 not in the imported file (6 events elided)"). */
export function elidedLabel(row: Pick<ElidedRow, 'fromSeq' | 'toSeq'>): string {
  const n = row.toSeq - row.fromSeq + 1;
  return `⋯ seq ${row.fromSeq}${n > 1 ? `–${row.toSeq}` : ''} not in the imported file (${n} event${n === 1 ? '' : 's'} elided)`;
}

/** The "What to do" part of a warning row. */
export function warningHintLabel(hint: string): string {
  return ` What to do: ${hint}`;
}

/** Instruction-file scope words. */
export const SCOPE_LABEL: Readonly<Record<string, string>> = { user: 'user', project: 'project', nested: 'folder' };

/** Where an instructions row's files go. */
export function instructionsWhere(row: InstructionsRow): string {
  return row.placement === 'tool-result' ? 'added to the tool result' : 'in the system prompt';
}

/** An instructions row with no files. */
export const NO_INSTRUCTIONS = 'none in force any more';

function warningText(row: WarningRow): string {
  return `${row.code}\n${row.message}${row.hint !== undefined ? warningHintLabel(row.hint) : ''}`;
}

const lines = (...parts: readonly (string | undefined | false)[]): string => parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n');

/**
 * The text of a row that find looks at: what the row shows, with its folded parts opened (a tool's
 * output, a reasoning's whole text, a machine message, a todo list). Buttons' words are left out.
 */
export function rowSearchText(row: TimelineRow, context: RowTextContext = {}): string {
  switch (row.kind) {
    case 'turn':
      return lines(`Turn ${row.turn}`, clockTime(row.time), stepsLabel(row.steps), turnRuleEnd(row));
    case 'turn-end': {
      const duration = turnDurationLabel(row);
      return lines(`turn ${row.turn} ended: ${turnEndReason(row)}`, row.end.failure?.message, duration?.text, usageLabel(row.usage), row.cost && turnEndCost(row.cost));
    }
    case 'step':
      return lines(`step ${row.turn}.${row.step}`, row.model, stepFinishLabel(row.finish), row.attempts > 1 && `${row.attempts} attempts`, row.usageUnreported && 'usage not reported');
    case 'user':
      return lines(sourceLabel(row.sourceKind), row.sourceLabel, row.text);
    case 'text':
    case 'reasoning':
      return lines(row.text, row.failed && `attempt ${row.attempt} failed: ${row.failed.code}`);
    case 'tool':
      return lines(row.name, row.arguments, row.resultText, row.errorCode);
    case 'event':
      return lines(row.type, row.label, row.preview, ...(row.todos ?? []).map((t) => t.content));
    case 'compaction':
      return lines(row.summary, row.error, row.rejectedSummary, row.failure?.message);
    case 'retry':
      return lines(`retry ${row.attempt}`, row.failure.code, row.failure.message);
    case 'warning':
      return warningText(row);
    case 'approval':
      return lines('approval asked for', row.toolName, row.shown !== undefined ? visible(row.shown) : row.reason, approvalLabel(row.outcome).text);
    case 'end-seed':
      return endSeedLabel(isForkBoundary(row.seq, context));
    case 'elided':
      return elidedLabel(row);
    case 'instructions':
      return row.files.length === 0
        ? lines('instructions', NO_INSTRUCTIONS)
        : lines('instructions', ...row.files.map((f) => `${f.shownPath} ${SCOPE_LABEL[f.scope] ?? f.scope}${f.truncated ? ' cut' : ''}`), `— ${instructionsWhere(row)}`);
    default: {
      const unknown: never = row;
      return String((unknown as TimelineRow).kind);
    }
  }
}
