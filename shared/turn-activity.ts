/**
 * What the agent is doing right now, read from the timeline rows of the open turn: waiting for the
 * model, thinking, writing the answer, writing or running a tool call, waiting for an approval,
 * retrying, compacting; when the turn started, how much the model has streamed in this turn, and
 * whether the model stream has gone silent. Pure: the caller passes the clock.
 */
import type { TimelineRow } from './timeline-rows.js';

export type ActivityPhase = 'waiting-model' | 'thinking' | 'writing' | 'tool-args' | 'tool' | 'approval' | 'retrying' | 'compacting';

export interface TurnActivity {
  readonly phase: ActivityPhase;
  readonly turn: number;
  readonly step?: number;
  /** Time of the turn's start (epoch ms). */
  readonly startedAt: number;
  /** The tool being written or run (phases `tool-args`, `tool`). */
  readonly tool?: string;
  /** Characters the model streamed in this turn (reasoning, answer, tool arguments). */
  readonly streamedChars: number;
  /** Output tokens providers reported for the turn's finished steps. */
  readonly reportedTokens: number;
  /** Attempt and failure code of a retry (phase `retrying`). */
  readonly retry?: { readonly attempt: number; readonly code: string };
}

/** A model stream silent for longer than this is shown as stalled. */
export const STALL_MS = 15_000;

/** Phases in which the model owes us data (silence there is a stall; a running tool or an approval is not). */
const MODEL_PHASES: ReadonlySet<ActivityPhase> = new Set(['waiting-model', 'thinking', 'writing', 'tool-args', 'retrying']);

/**
 * The activity of the open (last, unended) turn, or undefined when no turn is open.
 * `pendingApprovals`: approvals waiting for the person (they win over everything else).
 */
export function turnActivity(rows: readonly TimelineRow[], pendingApprovals: number): TurnActivity | undefined {
  let turnIdx = -1;
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    if (row.kind === 'turn-end') return undefined;
    if (row.kind === 'turn') {
      if (row.ended) return undefined;
      turnIdx = i;
      break;
    }
  }
  if (turnIdx < 0) return undefined;
  const turnRow = rows[turnIdx]!;
  if (turnRow.kind !== 'turn') return undefined;
  let streamedChars = 0;
  let reportedTokens = 0;
  let step: number | undefined;
  let last: TimelineRow | undefined;
  for (let i = turnIdx + 1; i < rows.length; i++) {
    const row = rows[i]!;
    switch (row.kind) {
      case 'text':
      case 'reasoning':
        streamedChars += row.text.length;
        last = row;
        break;
      case 'tool':
        streamedChars += row.arguments.length;
        last = row;
        break;
      case 'step':
        step = row.step;
        if (!row.open && row.usage) reportedTokens += row.usage.outputTokens;
        last = row;
        break;
      case 'retry':
      case 'compaction':
        last = row;
        break;
      default:
        break;
    }
  }
  const base = { turn: turnRow.turn, startedAt: turnRow.time, streamedChars, reportedTokens, ...(step !== undefined ? { step } : {}) };
  if (pendingApprovals > 0) return { ...base, phase: 'approval' };
  // The running tool, if any (after the model's block, tool calls run while later rows may exist).
  for (let i = rows.length - 1; i > turnIdx; i--) {
    const row = rows[i]!;
    if (row.kind === 'step') break;
    if (row.kind === 'tool' && row.state === 'running') return { ...base, phase: 'tool', tool: row.name };
  }
  if (!last || last.kind === 'step') return { ...base, phase: 'waiting-model' };
  switch (last.kind) {
    case 'reasoning':
      return { ...base, phase: last.streaming && !last.superseded ? 'thinking' : 'waiting-model' };
    case 'text':
      return { ...base, phase: last.streaming ? 'writing' : 'waiting-model' };
    case 'tool':
      if (last.state === 'streaming') return { ...base, phase: 'tool-args', tool: last.name };
      if (last.state === 'pending') return { ...base, phase: 'tool', tool: last.name };
      return { ...base, phase: 'waiting-model' };
    case 'retry':
      return { ...base, phase: 'retrying', retry: { attempt: last.attempt, code: last.failure.code } };
    case 'compaction':
      return { ...base, phase: last.state === 'running' ? 'compacting' : 'waiting-model' };
    default:
      return { ...base, phase: 'waiting-model' };
  }
}

/** Whether `phase`, silent since `lastEventAt`, counts as a stalled model stream at `now`. */
export function isStalled(phase: ActivityPhase, lastEventAt: number | undefined, now: number): boolean {
  return MODEL_PHASES.has(phase) && lastEventAt !== undefined && now - lastEventAt > STALL_MS;
}

/** The phase in words, for the activity line: `Thinking`, `Running bash`, … */
export function activityLabel(a: TurnActivity): string {
  switch (a.phase) {
    case 'waiting-model':
      return 'Waiting for the model';
    case 'thinking':
      return 'Thinking';
    case 'writing':
      return 'Writing the answer';
    case 'tool-args':
      return a.tool ? `Writing a ${a.tool} call` : 'Writing a tool call';
    case 'tool':
      return a.tool ? `Running ${a.tool}` : 'Running a tool';
    case 'approval':
      return 'Waiting for your approval';
    case 'retrying':
      return `Retrying after ${a.retry?.code ?? 'an error'}`;
    case 'compacting':
      return 'Compacting the history';
  }
}
