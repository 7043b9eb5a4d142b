/**
 * Labels that must not overstate what the log knows (pure):
 * - a tool call's duration only when it was measured from its start to its own result; a call that
 *   never ran, or whose outcome a crash lost, says so instead of showing a made-up figure (a
 *   synthetic result's time is when it was written, not when the call ended); under 1 ms reads
 *   "<1 ms", never "0 ms";
 * - a turn closed by crash recovery has no known duration;
 * - an approval outcome in words, shown once (on the tool row);
 * - a step's finish reason without repeating itself ("aborted", not "aborted ABORTED"), and a time
 *   to first token only when a token came (a request refused before it was sent has none).
 */
import { formatDuration } from '../../../shared/format.js';
import type { StepRow, ToolRow, TurnEndRow } from '../../../shared/timeline.js';

export interface Label {
  readonly text: string;
  /** Longer explanation (tooltip). */
  readonly title?: string;
}

/** Error codes of results that were written for a call instead of by it. */
const NOT_RUN = new Set(['TOOL_NOT_STARTED', 'ABORTED_BEFORE_DISPATCH']);

/** A measured duration; sub-millisecond figures read "<1 ms". */
export function measured(ms: number): string {
  return ms < 1 ? '<1 ms' : formatDuration(ms);
}

/** The duration cell of a tool row. Empty while nothing is known yet (streaming, pending). */
export function toolDurationLabel(row: Pick<ToolRow, 'state' | 'durationMs' | 'errorCode' | 'crash' | 'approvalWaitMs'>): Label {
  if (row.crash === 'outcome-unknown' || row.errorCode === 'TOOL_OUTCOME_UNKNOWN')
    return { text: 'unknown', title: 'The app stopped while this call ran; how long it ran (and whether it finished) is unknown.' };
  if (row.crash === 'not-started' || (row.errorCode !== undefined && NOT_RUN.has(row.errorCode))) return { text: 'not run', title: 'This call never started, so it has no duration.' };
  if (row.durationMs === undefined || !Number.isFinite(row.durationMs) || row.durationMs < 0) {
    return row.state === 'running'
      ? { text: '…', title: 'running' }
      : row.state === 'done' || row.state === 'error'
        ? { text: 'unknown', title: 'No start time was logged for this call.' }
        : { text: '' };
  }
  // The wait for the person's decision is not the tool's time: it is shown apart (tool-approval-wait).
  const ran = Math.max(0, row.durationMs - (row.approvalWaitMs ?? 0));
  if (row.errorCode === 'ABORTED') return { text: `killed after ${measured(ran)}`, title: 'Cancelled while running: it was stopped (with every process it started) after this long.' };
  return row.approvalWaitMs ? { text: measured(ran), title: `ran ${measured(ran)}; the ${measured(row.approvalWaitMs)} waiting for approval is not counted` } : { text: measured(row.durationMs) };
}

/** The duration of a turn: unknown when crash recovery closed it (its end was written later, at recovery). */
export function turnDurationLabel(row: Pick<TurnEndRow, 'durationMs' | 'end'>): Label | undefined {
  if (row.end.kind === 'interrupted') return { text: 'duration unknown', title: 'The app stopped during this turn; recovery closed it later, so its real duration is unknown.' };
  return row.durationMs !== undefined ? { text: measured(row.durationMs) } : undefined;
}

/** An approval outcome in words, with a badge tone. */
export function approvalLabel(outcome: string | undefined): Label & { readonly tone: 'ok' | 'bad' | 'warn' | 'muted' } {
  switch (outcome) {
    case undefined:
      return { text: 'awaiting approval', tone: 'warn' };
    case 'allowed-once':
      return { text: 'allowed once', tone: 'ok' };
    case 'allowed-session':
    case 'allowed-for-session':
      return { text: 'allowed for this session', tone: 'ok' };
    case 'rejected':
      return { text: 'rejected', tone: 'bad', title: 'The person rejected this call; it did not run.' };
    case 'cancelled':
      return { text: 'approval cancelled', tone: 'muted', title: 'The turn was cancelled while this call waited for approval.' };
    case 'unavailable':
      return { text: 'no one to approve', tone: 'bad', title: 'Approval was needed but nobody could be asked, so the call was refused.' };
    default:
      return { text: outcome, tone: 'muted' };
  }
}

/** The finish badge of a step, or undefined for an ordinary finish (stop, tool calls). */
export function stepFinishLabel(finish: string | undefined): string | undefined {
  if (!finish || finish === 'stop' || finish === 'tool-calls') return undefined;
  const [kind, code] = finish.split(' ');
  if (kind === 'aborted') return code && code !== 'ABORTED' ? `aborted (${code})` : 'aborted';
  return finish;
}

/** Whether the step's time to first token means anything: some chunk other than the final error came. */
export function showsTtft(row: Pick<StepRow, 'ttftMs' | 'chunkCount' | 'finish'>): boolean {
  if (row.ttftMs === undefined || row.ttftMs < 0) return false;
  const failed = row.finish !== undefined && (row.finish.startsWith('error') || row.finish.startsWith('aborted'));
  return !(failed && row.chunkCount <= 1);
}
