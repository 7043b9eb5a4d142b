/**
 * The reference runtime's event vocabulary (DeepSeek Harness), and what each type means for an
 * import: mapped onto our events, kept as a log-only raw row, or kept raw but model-visible
 * (continuing past it would not send what the source's model saw).
 *
 * Sources:
 * - `packages/core/session/src/known-event-types.ts` (generated list, toninfo/deepseek-harness
 *   @ac3f55f, 0.1.0-rc.8 line) and `packages/core/session/src/types.ts` (`SessionEventMap`; only
 *   `user/message`, `assistant/message`, `tool/result` are surface types, i.e. model-visible);
 * - the later vocabulary a downstream validator of DSH 0.1.7-alpha pins (format V4: adds
 *   `system/message` and `developer/message` as surface types, `image/offload` as an event with a
 *   "model-visible effect that needs an explicit interpreter", `assistant/attempt`, `tool/ptc-dispatch*`,
 *   `team/*`, `feedback/message-*`, `model/selection`, `subagent/*`, `workspace/changes`,
 *   `deliverables/presented`, `session-log-deepseek/delivery-accepted`), and renames `compact/*` ↔
 *   `compaction/*` between builds;
 * - the team digest `reference/dsh-contracts.md` §1.3 (plugin-merged log-only events).
 *
 * Rule for a type in none of these lists: it is model-visible when its envelope carries a
 * `surfaceOp` (in the reference runtime only surface events may), otherwise log-only.
 */

/** Reference-runtime names of compaction events in builds that said `compact/*`. */
export const DSH_RENAMED_TYPES: Readonly<Record<string, string>> = {
  'compact/start': 'compaction/start',
  'compact/summary': 'compaction/summary',
  'compact/end': 'compaction/end',
  'compact/prune': 'compaction/prune',
};

/** Known reference-runtime types that never reach a model request: kept as raw rows. */
export const DSH_LOG_ONLY_TYPES: ReadonlySet<string> = new Set([
  'agent-preset/selected',
  'assistant/attempt',
  'command/done',
  'command/run',
  'deliverables/presented',
  'feedback/message-delete',
  'feedback/message-put',
  'feedback/record',
  'goal/change',
  'hook/invoked',
  'hook/result',
  'llm/retry-started',
  'model/selection',
  'permission/preset',
  'plan/mode',
  'sandbox/mode',
  'schedule/change',
  'session-log-deepseek/delivery-accepted',
  'session/title-llm-request',
  'subagent/catalog',
  'subagent/descriptor',
  'subagent/model-selection-policy',
  'team/member',
  'team/message/delivered',
  'team/message/queued',
  'team/task',
  'tool-workflow/agent-end',
  'tool-workflow/agent-start',
  'tool-workflow/run-end',
  'tool-workflow/run-start',
  'tool/code-dispatch',
  'tool/code-dispatch-start',
  'tool/ptc-dispatch',
  'tool/ptc-dispatch-start',
  'web/deepseek-search-llm-request',
  'workspace/changes',
]);

/** Known reference-runtime types that change what the model sees, which this build cannot replay. */
export const DSH_MODEL_VISIBLE_TYPES: ReadonlySet<string> = new Set(['system/message', 'developer/message', 'image/offload']);

export type DshTypeClass = 'log-only' | 'model-visible';

/** How a reference-runtime type we do not map is kept (see the module comment for the rule). */
export function classifyForeignType(type: string, hasSurfaceOp: boolean): { readonly kind: DshTypeClass; readonly note: string } {
  if (DSH_MODEL_VISIBLE_TYPES.has(type)) return { kind: 'model-visible', note: 'a reference-runtime event that changes what the model sees; this build cannot replay it' };
  if (DSH_LOG_ONLY_TYPES.has(type)) return { kind: hasSurfaceOp ? 'model-visible' : 'log-only', note: 'a reference-runtime log-only event' };
  return hasSurfaceOp
    ? { kind: 'model-visible', note: 'an event type this build does not know, placed on the model-visible surface' }
    : { kind: 'log-only', note: 'an event type this build does not know (log-only: no surface op)' };
}
