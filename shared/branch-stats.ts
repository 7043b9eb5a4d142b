/**
 * Per-branch figures for the compare view (docs/architecture.md §10: transcript, tokens, time, files): a pure
 * projection of the events a branch added after its common boundary with another branch.
 */
import type { SessionEvent } from './events.js';
import { messageText } from './messages.js';
import { sessionCost } from './session-cost.js';

export interface BranchStats {
  /** Turns started after the boundary. */
  readonly turns: number;
  readonly steps: number;
  readonly toolCalls: number;
  /** Token totals from the provider's usage reports (disjoint counts, see TokenUsage). */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /**
   * What the branch's responses cost (USD, from logged usage at logged prices, shared/session-cost.ts);
   * absent when a response's price is unknown (`unpricedResponses` counts them) — never 0 for unknown.
   */
  readonly costUsd?: number;
  readonly unpricedResponses: number;
  /** Responses billed after the boundary (0: nothing was billed, so there is no cost to show). */
  readonly billedResponses: number;
  /** Sum of turn durations (turn/end − turn/start), ms. */
  readonly durationMs: number;
  /** The first prompt the user typed after the boundary (labels the branch). */
  readonly firstPrompt?: string;
  /** The last `workspace/checkpoint` commit of the branch, if any. */
  readonly lastCheckpoint?: string;
  /** How the last turn ended (`completed`, `error`, …), if a turn ended. */
  readonly lastTurnEnd?: string;
}

/** Figures for `events` from seq `fromSeq` on. */
export function branchStats(events: readonly SessionEvent[], fromSeq: number): BranchStats {
  let turns = 0;
  let steps = 0;
  let toolCalls = 0;
  let inputTokens = 0;
  let cacheReadTokens = 0;
  let outputTokens = 0;
  let reasoningTokens = 0;
  let durationMs = 0;
  let turnStartedAt: number | undefined;
  let firstPrompt: string | undefined;
  let lastCheckpoint: string | undefined;
  let lastTurnEnd: string | undefined;
  for (const event of events) {
    if (event.type === 'workspace/checkpoint') lastCheckpoint = event.data.commit;
    if (event.seq < fromSeq) continue;
    switch (event.type) {
      case 'turn/start':
        turns++;
        turnStartedAt = event.time;
        break;
      case 'turn/end':
        if (turnStartedAt !== undefined) durationMs += Math.max(0, event.time - turnStartedAt);
        turnStartedAt = undefined;
        lastTurnEnd = event.data.reason.kind;
        break;
      case 'step/start':
        steps++;
        break;
      case 'tool/call':
        toolCalls++;
        break;
      case 'assistant/message':
        if (event.data.usage) {
          inputTokens += event.data.usage.inputTokens;
          cacheReadTokens += event.data.usage.cacheReadTokens ?? 0;
          outputTokens += event.data.usage.outputTokens;
          reasoningTokens += event.data.usage.reasoningTokens ?? 0;
        }
        break;
      case 'user/message':
        if (firstPrompt === undefined && event.data.source.kind === 'user') firstPrompt = messageText(event.data);
        break;
      default:
        break;
    }
  }
  const billed = sessionCost(events.filter((e) => e.seq >= fromSeq));
  const cost = billed.total;
  return {
    turns,
    steps,
    toolCalls,
    inputTokens,
    cacheReadTokens,
    outputTokens,
    reasoningTokens,
    ...(cost.usd !== undefined ? { costUsd: cost.usd } : {}),
    unpricedResponses: cost.unknownCount,
    billedResponses: billed.responses.length,
    durationMs,
    ...(firstPrompt !== undefined ? { firstPrompt } : {}),
    ...(lastCheckpoint !== undefined ? { lastCheckpoint } : {}),
    ...(lastTurnEnd !== undefined ? { lastTurnEnd } : {}),
  };
}
