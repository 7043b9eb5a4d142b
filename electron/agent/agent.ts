/**
 * Size: over 500 lines because the turn/step driver is one state machine (turn, step, cancel and
 * compaction share its locals); what to do about a failed request already lives apart
 * (failure-decision.ts), the tools of a step in step-tools.ts (see docs/architecture.md §4).
 *
 * The agent loop (docs/architecture.md §4; reference runtime `packages/core/agent-loop/src/agent.ts`): the
 * turn/step driver over one live session.
 *
 * One turn: `turn/start` → claim the inbox → (nothing claimed → zero-step turn) → `step/start` →
 * `user/message`s → `request/header` when first or changed → flush → model stream, every chunk
 * logged → `assistant/message` → tools (`tool/call` in model order as each starts, `tool/result`
 * in model order) → `step/end` → another step while tool results or steering are owed →
 * `turn/end{reason}`. `step/end` and `turn/end` are always written (finally).
 *
 * Retries of a failed request stay inside the same step (`llm/retry` logged before the wait).
 * `max-tokens` drops unfinished tool calls and is sticky for the turn. Cancel carries a cause; a
 * partially streamed answer becomes `assistant/message{interrupted}`; calls not yet started get
 * `ABORTED_BEFORE_DISPATCH` pairs. Durability barriers: flush before each model request and before
 * each tool body runs, and at turn end.
 *
 * Context limits (docs/architecture.md §5): the window in force is logged in `request/context` before a request
 * whose route or limits changed. A context-overflow failure is recovered inside the step, at most
 * once per kind (never a loop): when the output size alone caused it (the prompt fits the stated
 * window), the request is retried with a lower max output and no compaction; otherwise the history
 * is compacted once (also with no known window) and the request retried; a window the error states
 * is remembered (`onLimitsLearned`). If it still does not fit, the turn ends with a message saying
 * what to do. What to do about any failed request is a pure decision (`failure-decision.ts`: retry,
 * lower output, compact, correct history or fail); `runStep` logs and applies it. A reply whose reported prompt size is far below our estimate of what was sent means
 * the server cut the prompt silently: an `llm/warning{PROMPT_TRUNCATED}` is logged on the step and
 * the reported size becomes the window in force.
 *
 * History dialect (docs/providers.md "A history any endpoint accepts"): what the log taught about the endpoint (`electron/session/wire-hints.ts`)
 * goes into every `request/header.dialect`. A rejection of the history's shape that the adapter
 * knows how to fix (`electron/llm/history-rejection.ts`) is corrected once inside the step —
 * `llm/warning{HISTORY_CORRECTED, dialect}`, an `llm/retry` with no wait, and a changed header —
 * at most once per step, and fails the turn if the corrected request is refused the same way. A
 * custom or local endpoint the log knows nothing about gets `reasoning_content` on tool-call
 * messages by default (`requestDialect`); a refusal of the field is corrected the same way.
 */
import type { LlmFailure, TokenUsage } from '../../shared/chunks.js';
import { Emitter, type Event } from '../../shared/event.js';
import { errorChain, ForklineError } from '../../shared/errors.js';
import type { ApprovalPolicyName, CancelCause, ContextWindowSource, LlmCallConfig, RequestHeader, SessionEvent, TurnEndReason } from '../../shared/events.js';
import { jsonEquals, type JsonValue } from '../../shared/json.js';
import type { AssistantBlock, AssistantMessage, Message, ToolCallBlock, UserMessage } from '../../shared/messages.js';
import type { AgentStatus } from '../../shared/api.js';
import { BlockAssembler } from '../llm/assembler.js';
import { limitKey } from '../llm/model-limits.js';
import type { ModelClient } from '../llm/model-client.js';
import type { RetryPolicy } from '../llm/retry-policy.js';
import { describeHistoryFix, requestDialect } from '../llm/history-rejection.js';
import { dialectOf } from '../llm/providers.js';
import type { Session } from '../session/session.js';
import { WireHintTracker } from '../session/wire-hints.js';
import type { ProcessSupervisor } from '../tools/process-supervisor.js';
import type { ArgumentParse, ToolCallRequest, ToolCallResult } from '../tools/pipeline.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { FileReadTracker } from '../tools/tool.js';
import { ApprovalGate, type ApprovalAnswerer, type PendingApproval } from './approval-gate.js';
import { Inbox, type InboxState } from './inbox.js';
import {
  CompactionError,
  compactSession,
  DEFAULT_COMPACTION_CONFIG,
  estimateRequestTokens,
  estimateSurfaceTokens,
  measureRequestTokens,
  summaryLimits,
  type CompactionConfig,
  type CompactionOutcome,
} from './compaction.js';
import { contextAdvice, truncationHint } from './context-advice.js';
import { afterDecision, decideFailure, INITIAL_FAILURE_STATE } from './failure-decision.js';
import { NestedInstructionTracker } from './nested-instructions.js';
import { instructionRef, sameInstructionRefs, type InstructionFile, type ProjectInstructions } from './project-instructions.js';
import { runStepTools } from './step-tools.js';
import { BudgetStop, type SpendGuard } from './spend-guard.js';
import { localDate, renderSystemPrompt } from './system-prompt.js';

/** What the model should be called with; read at every step so settings changes apply. */
export interface AgentModelConfig extends LlmCallConfig {
  /** Context window in tokens, when known (logged in `request/context`). */
  readonly contextWindow?: number;
  /** Where `contextWindow` came from (see `ContextWindowSource`). */
  readonly contextSource?: ContextWindowSource;
  /** The model's known output cap, tokens (logged in `request/context`; `maxTokens` is what is requested). */
  readonly maxOutputTokens?: number;
  /** The endpoint's base URL (logged in `request/context`, so a resume can reach it again). */
  readonly baseUrl?: string;
}

/** A limit the agent observed for an endpoint + model (tokens), and how. */
export interface LearnedLimits {
  readonly provider: string;
  readonly baseUrl?: string;
  readonly model: string;
  readonly contextWindow: number;
  readonly how: 'overflow-error' | 'truncated-prompt';
}

export interface AgentOptions {
  readonly session: Session;
  /** Resolves when every appended event is durable (the store's write-behind barrier). */
  readonly flush: () => Promise<void>;
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly files: FileReadTracker;
  /** Absolute real path of the workspace. */
  readonly cwd: string;
  /**
   * First seq of the events this installation recorded (default 0). Earlier events (an imported
   * log, or a fork's prefix inherited from one) are never used to act: e.g. their checkpoints do
   * not count as this workspace's baseline.
   */
  readonly recordedFromSeq?: number;
  /** The model configuration, read before every request (may resolve published limits first). */
  readonly config: () => AgentModelConfig | Promise<AgentModelConfig>;
  /** Called when a context limit was learned from the provider (to remember it per endpoint + model). */
  readonly onLimitsLearned?: (learned: LearnedLimits) => void;
  readonly approvalPolicy: () => ApprovalPolicyName;
  readonly approvalAnswerer?: ApprovalAnswerer;
  /** `approval/rule` events before this seq are not honoured (imported history). Default 0. */
  readonly approvalRulesTrustedFrom?: number;
  /** Secret values (API keys) removed from every tool result. */
  readonly toolSecrets?: () => readonly string[];
  readonly newId: () => string;
  readonly now?: () => number;
  readonly platform?: string;
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** Waits `ms`, rejecting when `signal` aborts. Tests may shorten waits. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly maxParallelToolCalls?: number;
  /** Live tool output (bash) for the UI. */
  readonly onToolOutput?: (output: { readonly turn: number; readonly step: number; readonly callId: string; readonly text: string }) => void;
  /** Saves an oversized tool output and returns where (see ToolPipeline). */
  readonly spill?: (callId: string, text: string) => string | undefined;
  /**
   * Decides, before each step, what enters it (reference runtime `agent/pre-step`): `enter` with the
   * (possibly rewritten, possibly empty) messages, or `reject` to end the turn as `blocked`. An empty
   * first batch gives a zero-step turn. Default: enter the claimed messages unchanged.
   */
  readonly preStep?: (messages: readonly UserMessage[], position: { readonly turn: number; readonly step: number }) => PreStepDecision | Promise<PreStepDecision>;
  /**
   * Snapshots the workspace and returns the checkpoint's id (a commit), logged as
   * `workspace/checkpoint`: once before the session's first turn and after every turn.
   */
  readonly checkpoint?: (label: string) => Promise<string | undefined>;
  /** Compaction thresholds; `false` disables automatic compaction. */
  readonly compaction?: Partial<CompactionConfig> | false;
  /** Text appended to the system prompt (a fan-out variant's addendum); logged with the header like the rest. */
  readonly systemAddendum?: string;
  /** Overrides the system prompt renderer (tests). */
  readonly systemPrompt?: (config: AgentModelConfig, toolNames: readonly string[]) => string;
  /** Supervises tool processes (none outlives Forkline; each is logged as `tool/process`). */
  readonly supervisor?: ProcessSupervisor;
  /**
   * The workspace's project instructions (AGENTS.md …, docs/architecture.md §8b): read once per agent lifecycle
   * into the system prompt, and per touched folder below the workspace into tool results.
   */
  readonly instructions?: ProjectInstructions;
  /**
   * Runs before each model request is built (every attempt), e.g. to wait for MCP servers that are
   * starting and refresh the registry's MCP tools; the tool list then logged in `request/header` is
   * what the request offers. Must not throw for a broken server (it should just offer fewer tools).
   */
  readonly beforeRequest?: (signal: AbortSignal) => Promise<void>;
  /**
   * Logs each request's price and refuses one that could cross a budget (docs/providers.md "Prices, overrides and budgets"): called right
   * before every request is sent; its BudgetStop ends the turn with reason `budget`.
   */
  readonly spendGuard?: SpendGuard;
  /** Tool output above this many UTF-8 bytes is cut to head + tail (default: the pipeline's 50,000). */
  readonly toolOutputCapBytes?: number;
  /** How tool-call argument strings are parsed (default: the pipeline's `parseArguments`; replay tests swap it). */
  readonly parseToolArguments?: (raw: string) => ArgumentParse;
  /** The workspace path the system prompt names (default `cwd`; a replay runs tools elsewhere but says the session's folder). */
  readonly promptCwd?: string;
}

/** What a pre-step hook decides. */
export type PreStepDecision = { readonly kind: 'enter'; readonly messages: readonly UserMessage[] } | { readonly kind: 'reject'; readonly reason: string };

/** Thrown inside the driver when a pre-step hook rejects the step. */
class StepRejected extends Error {}

/** The failure a turn ended with, thrown inside the driver. */
class TurnFailure extends ForklineError {
  constructor(readonly failure: LlmFailure) {
    super(failure.code, failure.message);
    this.name = 'TurnFailure';
  }
}

type StepOutcome = 'completed' | 'max-tokens' | 'tools';

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

export class Agent {
  readonly session: Session;
  readonly inbox: Inbox;
  readonly approvals: ApprovalGate;
  private readonly options: AgentOptions;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private statusValue: AgentStatus = 'idle';
  private driver: Promise<void> | undefined;
  private activeAbort: AbortController | undefined;
  private wakeLatched = false;
  private maintenance: Promise<unknown> | undefined;
  /** Whether the log already has a workspace checkpoint (the baseline is taken once). */
  private hasCheckpoint: boolean;
  private disposed = false;
  private headerLoggedByThisInstance = false;
  /** The header built for the previous request and the logged header it went with (logHeader). */
  private lastBuilt: { readonly header: RequestHeader; readonly logged: RequestHeader | undefined } | undefined;
  /** Project instruction files of the system prompt, read at this instance's first request. */
  private systemInstructions: readonly InstructionFile[] | undefined;
  private readonly nestedInstructions: NestedInstructionTracker | undefined;
  /** The system prompt's date: the day of the session's first request (kept across resumes). */
  private sessionDate: string | undefined;
  /** The last `request/context` of the current lifecycle (scanned once, then tracked). */
  private lastContext: SessionEvent<'request/context'>['data'] | undefined;
  /** Windows learned from this endpoint + model in this lifecycle (limitKey → tokens); they only lower the window. */
  private readonly learnedWindows = new Map<string, number>();
  /** The window each endpoint and model was last warned of as cutting prompts (PROMPT_TRUNCATED). */
  private readonly truncationWarned = new Map<string, number>();
  /** A lowered max output for the rest of the running turn (after an output-only overflow). */
  private turnOutputCap: number | undefined;
  /** What the log taught about each endpoint's history dialect (logged in `request/header.dialect`). */
  private readonly wireHints: WireHintTracker;
  private readonly statusEmitter = new Emitter<AgentStatus>();
  /** Fires on every `idle ⇄ running` transition. */
  readonly onDidChangeStatus: Event<AgentStatus> = this.statusEmitter.event;

  constructor(options: AgentOptions) {
    this.options = options;
    this.session = options.session;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    this.inbox = new Inbox(options.session);
    this.approvals = new ApprovalGate(options.session, options.newId, {
      ...(options.approvalAnswerer ? { answerer: options.approvalAnswerer } : {}),
      ...(options.approvalRulesTrustedFrom !== undefined ? { trustRulesFrom: options.approvalRulesTrustedFrom } : {}),
    });
    this.lastContext = lastRequestContext(options.session);
    this.wireHints = new WireHintTracker(options.recordedFromSeq ?? 0);
    const learned = lastLearnedContext(options.session);
    if (learned?.contextWindow !== undefined) this.learnedWindows.set(limitKey(learned.baseUrl ?? '', learned.model), learned.contextWindow);
    this.hasCheckpoint = options.session.eventsFrom(options.recordedFromSeq ?? 0).some((e) => e.type === 'workspace/checkpoint');
    this.nestedInstructions = options.instructions ? new NestedInstructionTracker(options.session, options.instructions, options.cwd) : undefined;
  }

  get status(): AgentStatus {
    return this.statusValue;
  }
  get onDidChangeInbox(): Event<InboxState> {
    return this.inbox.onDidChange;
  }
  get onDidChangeApprovals(): Event<readonly PendingApproval[]> {
    return this.approvals.onDidChange;
  }

  /** Queues a prompt for its own turn and wakes the agent. */
  followup(text: string): UserMessage {
    return this.send('next-turn', text, { kind: 'user' }, true);
  }

  /** Queues steering for the next step of the running turn (or starts a turn when idle). */
  steer(text: string): UserMessage {
    return this.send('next-step', text, { kind: 'steer' }, true);
  }

  /** Stages context for the next step without waking an idle agent. */
  inject(text: string): UserMessage {
    return this.send('next-step', text, { kind: 'inject' }, false);
  }

  private send(target: 'next-turn' | 'next-step', text: string, source: UserMessage['source'], wake: boolean): UserMessage {
    if (this.disposed) throw new ForklineError('AGENT_DISPOSED', 'the agent was disposed');
    const message: UserMessage = { id: this.options.newId(), role: 'user', content: [{ type: 'text', text }], source };
    // A waking send that lands after the running turn was cancelled waits for the next turn.
    const redirected = wake && target === 'next-step' && this.activeAbort?.signal.aborted === true ? 'next-turn' : target;
    this.inbox.add(redirected, message);
    if (wake) this.wake();
    return message;
  }

  private wake(): void {
    if (this.driver || this.maintenance) {
      this.wakeLatched = true;
      return;
    }
    this.setStatus('running');
    this.driver = this.drive()
      .catch((error: unknown) => {
        // A bug in the loop itself (not a turn failure, which ends the turn with a reason): report it
        // and go idle instead of taking the whole app down with an unhandled rejection.
        console.error(`session ${this.session.id}: the agent loop failed:`, error);
      })
      .finally(() => {
        this.driver = undefined;
        if (this.wakeLatched && !this.disposed && this.inbox.hasWork) {
          this.wakeLatched = false;
          this.wake();
        } else {
          this.wakeLatched = false;
          this.setStatus('idle');
        }
      });
  }

  private setStatus(status: AgentStatus): void {
    if (this.statusValue === status) return;
    this.statusValue = status;
    this.statusEmitter.fire(status);
  }

  /**
   * Manual compaction from idle (a standalone bracket between turns, owner `null`). Prompts sent
   * meanwhile wait until it finished.
   * @returns what was compacted, or undefined when there was nothing to compact.
   * @throws ForklineError BUSY when a turn is running; CompactionError when the summary failed;
   *   BudgetStop (code BUDGET) when the summary request could cross a budget (it was not sent).
   *   Each failure is logged in the bracket's `compaction/end`.
   */
  async compact(): Promise<CompactionOutcome | undefined> {
    if (this.driver || this.maintenance) throw new ForklineError('BUSY', 'the agent is working; compact once it is idle');
    const settings = { ...DEFAULT_COMPACTION_CONFIG, ...(this.options.compaction || {}) };
    const abort = new AbortController();
    this.activeAbort = abort;
    const run = (async () => {
      const config = this.effective(await this.options.config());
      const limits = summaryLimits(config.contextWindow, settings.summaryMaxTokens);
      return compactSession({
        session: this.session,
        model: this.options.model,
        turn: null,
        // Keep the usual tail, but never more than a quarter of what is there now: a manual request
        // on a large window should still compact something.
        retainTokens: Math.floor(Math.min(config.contextWindow !== undefined ? config.contextWindow * settings.retainRatio : Infinity, measureRequestTokens(this.session) * 0.25)),
        maxTokens: limits.maxTokens,
        ...(limits.maxInputTokens !== undefined ? { maxInputTokens: limits.maxInputTokens } : {}),
        // Priced and budget-checked like a step's request (turn 0 step 0: between turns); a refusal
        // closes the bracket with `budget` and is thrown as BudgetStop (nothing is sent).
        ...(this.options.spendGuard
          ? {
              beforeRequest: (r: { compactionId: string; header: RequestHeader; messages: readonly Message[] }) =>
                this.options.spendGuard!.beforeSend(this.session, { turn: 0, step: 0, provider: r.header.config.provider, model: r.header.config.model, ...r, ...pricedLimits(config) }),
            }
          : {}),
        signal: abort.signal,
        newId: this.options.newId,
      });
    })();
    this.maintenance = run;
    try {
      const outcome = await run;
      await this.options.flush();
      return outcome;
    } finally {
      this.maintenance = undefined;
      this.activeAbort = undefined;
      if (this.wakeLatched && this.inbox.hasWork && !this.disposed) {
        this.wakeLatched = false;
        this.wake();
      }
    }
  }

  /** Resolves when no turn is running or queued to run. */
  async whenIdle(): Promise<void> {
    while (this.driver || this.maintenance) await (this.driver ?? this.maintenance)!.catch(() => undefined);
  }

  /**
   * Cancels the running turn with a cause (the first cause wins) and clears the inbox durably
   * unless `keepInbox`. A no-op for the turn when idle.
   */
  cancel(cause: CancelCause = { kind: 'user' }, options: { keepInbox?: boolean } = {}): void {
    if (!options.keepInbox) {
      this.wakeLatched = false;
      this.inbox.clear();
    }
    if (this.activeAbort && !this.activeAbort.signal.aborted) this.activeAbort.abort(cause);
  }

  /** Cancels with cause `disposed`, waits for the driver, releases resources. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.cancel({ kind: 'disposed' }, { keepInbox: true });
    await this.whenIdle();
    this.approvals.dispose();
    this.inbox.dispose();
    this.statusEmitter.dispose();
  }

  private async drive(): Promise<void> {
    for (;;) {
      if (this.disposed || !this.inbox.hasWork) return;
      if (!this.hasCheckpoint) {
        await this.takeCheckpoint(this.session.lastTurn, 'before the first turn');
        if (this.disposed || !this.inbox.hasWork) return; // cancelled while the snapshot ran
      }
      const keepGoing = await this.runTurn();
      await this.takeCheckpoint(this.session.lastTurn, `after turn ${this.session.lastTurn}`);
      if (!keepGoing) return;
    }
  }

  /** Snapshots the workspace (between turns) and logs it; a failure is reported, never fatal. */
  private async takeCheckpoint(turn: number, label: string): Promise<void> {
    if (!this.options.checkpoint) return;
    try {
      const commit = await this.options.checkpoint(`${this.session.id}: ${label}`);
      if (commit !== undefined) {
        this.session.append({ type: 'workspace/checkpoint', data: { turn, commit } });
        this.hasCheckpoint = true;
        await this.options.flush();
      }
    } catch (error) {
      console.warn(`session ${this.session.id}: no workspace checkpoint ${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Runs one turn; returns true when the driver may continue with queued work. */
  private async runTurn(): Promise<boolean> {
    const { session } = this;
    const turn = session.lastTurn + 1;
    const abort = new AbortController();
    this.activeAbort = abort;
    session.append({ type: 'turn/start', data: { turn } });
    this.turnOutputCap = undefined;
    let reason: TurnEndReason = { kind: 'completed' };
    let continueDriver = false;
    try {
      let batch: readonly UserMessage[] = this.inbox.claimForTurn();
      let step = 0;
      let maxTokens = false;
      for (;;) {
        if (abort.signal.aborted) throw abort.signal.reason;
        if (this.options.preStep) {
          const decision = await this.options.preStep(batch, { turn, step: step + 1 });
          if (abort.signal.aborted) throw abort.signal.reason;
          if (decision.kind === 'reject') throw new StepRejected(decision.reason);
          batch = decision.messages;
        }
        // An empty first batch is a zero-step turn: turn/end{completed} with no step.
        if (step === 0 && batch.length === 0) return false;
        step++;
        session.append({ type: 'step/start', data: { turn, step } });
        let outcome: StepOutcome;
        try {
          for (const message of batch) session.append({ type: 'user/message', data: message, surfaceOp: 'append' });
          outcome = await this.runStep(turn, step, abort.signal);
        } finally {
          session.append({ type: 'step/end', data: { turn, step } });
        }
        if (outcome === 'max-tokens') maxTokens = true;
        if (abort.signal.aborted) throw abort.signal.reason;
        batch = this.inbox.claimNextStep();
        if (outcome === 'tools' || batch.length > 0) continue;
        break;
      }
      reason = maxTokens ? { kind: 'max-tokens' } : { kind: 'completed' };
      continueDriver = true;
    } catch (error) {
      if (abort.signal.aborted) reason = { kind: 'aborted', cause: abort.signal.reason as CancelCause };
      else if (error instanceof StepRejected) reason = { kind: 'blocked' };
      else if (error instanceof BudgetStop) reason = { kind: 'budget', ...error.facts };
      else reason = { kind: 'error', failure: toFailure(error) };
    } finally {
      session.append({ type: 'turn/end', data: { turn, reason } });
      this.activeAbort = undefined;
      try {
        await this.options.flush();
      } catch (error) {
        console.error(`session ${session.id}: could not persist the end of turn ${turn}:`, error);
        continueDriver = false;
      }
    }
    return continueDriver;
  }

  private buildHeader(config: AgentModelConfig): RequestHeader {
    const tools = this.options.tools.schemas();
    const toolNames = tools.map((t) => t.name);
    const rendered = this.options.systemPrompt
      ? this.options.systemPrompt(config, toolNames)
      : renderSystemPrompt({
          cwd: this.options.promptCwd ?? this.options.cwd,
          platform: this.options.platform ?? process.platform,
          date: this.promptDate(),
          model: config.model,
          toolNames,
          instructions: this.loadSystemInstructions(),
        });
    const addendum = this.options.systemAddendum?.trim();
    const system = addendum ? (rendered === '' ? addendum : `${rendered}\n\n${addendum}`) : rendered;
    const callConfig: LlmCallConfig = {
      provider: config.provider,
      model: config.model,
      ...(config.reasoningEffort !== undefined ? { reasoningEffort: config.reasoningEffort } : {}),
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    };
    const dialect = requestDialect(config.provider, this.wireHints.hintsFor(this.session, { provider: config.provider, ...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}) }));
    return { config: callConfig, ...(system !== '' ? { system } : {}), ...(tools.length > 0 ? { tools } : {}), ...(dialect !== undefined ? { dialect: { ...dialect } } : {}) };
  }

  /**
   * The date the system prompt shows: the local day of the session's first `request/header`
   * (inherited by forks), so a resume on a later day sends the same prefix; today for a new session.
   */
  private promptDate(): string {
    if (this.sessionDate === undefined) {
      const first = this.session.events.find((e) => e.type === 'request/header');
      this.sessionDate = localDate(first ? first.time : this.now());
    }
    return this.sessionDate;
  }

  /**
   * Reads the system prompt's instruction files once per lifecycle and logs
   * `instructions/loaded{system}` when they differ from what the log last said was in force.
   */
  private loadSystemInstructions(): readonly InstructionFile[] {
    if (this.systemInstructions !== undefined) return this.systemInstructions;
    const files = this.options.instructions?.forSystemPrompt() ?? [];
    this.systemInstructions = files;
    const refs = files.map(instructionRef);
    const last = this.session.events.findLast((e): e is SessionEvent<'instructions/loaded'> => e.type === 'instructions/loaded' && e.data.placement === 'system');
    if (last ? !sameInstructionRefs(last.data.files, refs) : refs.length > 0) {
      this.session.append({ type: 'instructions/loaded', data: { placement: 'system', files: refs } });
    }
    return files;
  }

  /** Logs `request/header` when this is the instance's first request or the envelope changed. */
  /**
   * Whether `header` equals the one this instance built for its previous request, while the
   * session's last logged header is still the one that request went with. Built headers share the
   * registry's tool schemas, so this compare stops at identical objects; against the logged header
   * (a frozen copy) it walked every tool schema on every step.
   */
  private sameAsLastBuilt(header: RequestHeader, logged: RequestHeader | undefined): boolean {
    const last = this.lastBuilt;
    return last !== undefined && last.logged === logged && jsonEquals(last.header as unknown as JsonValue, header as unknown as JsonValue);
  }

  private logHeader(config: AgentModelConfig, header: RequestHeader): RequestHeader {
    const { session } = this;
    const previous = session.requestHeader();
    if (!this.headerLoggedByThisInstance) {
      this.headerLoggedByThisInstance = true;
      session.append({ type: 'request/header', data: { reason: previous === undefined ? 'initial' : 'resume', header } });
    } else if (!this.sameAsLastBuilt(header, previous) && !jsonEquals(previous as unknown as JsonValue, header as unknown as JsonValue)) {
      session.append({ type: 'request/header', data: { reason: 'change', header } });
    }
    this.lastBuilt = { header, logged: session.requestHeader() };
    const context = this.lastContext;
    if (
      !context ||
      context.provider !== config.provider ||
      context.model !== config.model ||
      context.contextWindow !== config.contextWindow ||
      context.baseUrl !== config.baseUrl ||
      context.contextSource !== config.contextSource ||
      context.maxOutputTokens !== config.maxOutputTokens
    ) {
      const event = session.append({
        type: 'request/context',
        data: {
          provider: config.provider,
          model: config.model,
          ...(config.contextWindow !== undefined ? { contextWindow: config.contextWindow } : {}),
          ...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}),
          ...(config.contextWindow !== undefined && config.contextSource !== undefined ? { contextSource: config.contextSource } : {}),
          ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
        },
      });
      this.lastContext = event.data;
    }
    return session.requestHeader()!;
  }

  /**
   * The configuration with what this lifecycle learned applied: a learned window lowers the window
   * in force (never below a person's explicit setting), and an output cap lowered after an
   * output-only overflow replaces `maxTokens` for the rest of the turn.
   */
  private effective(config: AgentModelConfig): AgentModelConfig {
    let out: AgentModelConfig = config;
    const learned = this.learnedWindows.get(limitKey(config.baseUrl ?? '', config.model));
    if (learned !== undefined && config.contextSource !== 'setting' && (config.contextWindow === undefined || learned < config.contextWindow)) {
      out = { ...out, contextWindow: learned, contextSource: 'learned' };
    }
    if (this.turnOutputCap !== undefined && (out.maxTokens === undefined || this.turnOutputCap < out.maxTokens)) out = { ...out, maxTokens: this.turnOutputCap };
    return out;
  }

  /** Records a learned window (this lifecycle) and reports it to the owner to remember. */
  private learnWindow(config: AgentModelConfig, contextWindow: number, how: LearnedLimits['how']): void {
    const key = limitKey(config.baseUrl ?? '', config.model);
    const known = this.learnedWindows.get(key);
    if (known !== undefined && known <= contextWindow) return;
    this.learnedWindows.set(key, contextWindow);
    try {
      this.options.onLimitsLearned?.({ provider: config.provider, ...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}), model: config.model, contextWindow, how });
    } catch (error) {
      console.warn(`session ${this.session.id}: could not remember the learned context window: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Compacts when the estimated request reaches the threshold share of the context window
   * (`pressure`), or as far as possible after the provider said the context window was exceeded
   * (`overflow`, also when no window is known). Returns true when the surface changed.
   */
  private async maybeCompact(turn: number, step: number, config: AgentModelConfig, signal: AbortSignal, trigger: 'pressure' | 'overflow'): Promise<boolean> {
    if (this.options.compaction === false) return false;
    if (trigger === 'pressure' && config.contextWindow === undefined) return false;
    const settings = { ...DEFAULT_COMPACTION_CONFIG, ...this.options.compaction };
    const window = config.contextWindow;
    // After a silent truncation the provider's own counts are too low: trust our estimate too.
    const measured = config.contextSource === 'learned' ? Math.max(measureRequestTokens(this.session), estimateSurfaceTokens(this.session)) : measureRequestTokens(this.session);
    if (trigger === 'pressure' && measured < window! * settings.thresholdRatio) return false;
    const limits = summaryLimits(window, settings.summaryMaxTokens);
    try {
      const outcome = await compactSession({
        session: this.session,
        model: this.options.model,
        turn,
        retainTokens: trigger === 'overflow' ? 0 : Math.floor(window! * settings.retainRatio),
        maxTokens: limits.maxTokens,
        ...(limits.maxInputTokens !== undefined ? { maxInputTokens: limits.maxInputTokens } : {}),
        // Under pressure, summarising a sliver costs a request and frees nothing.
        minShadowedTokens: trigger === 'overflow' ? 0 : Math.max(256, Math.floor(window! * 0.05)),
        ...(this.options.spendGuard
          ? {
              beforeRequest: (r: { compactionId: string; header: RequestHeader; messages: readonly Message[] }) =>
                this.options.spendGuard!.beforeSend(this.session, { turn, step, provider: config.provider, model: config.model, ...r, ...pricedLimits(config) }),
            }
          : {}),
        signal,
        newId: this.options.newId,
      });
      return outcome !== undefined;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof CompactionError) {
        console.warn(`session ${this.session.id}: compaction failed (${error.message}); continuing with the full history`);
        return false;
      }
      throw error;
    }
  }

  private async runStep(turn: number, step: number, signal: AbortSignal): Promise<StepOutcome> {
    const { session } = this;
    // What this step already did about failed requests (retries, output lowered, compaction tried, history corrected).
    let failures = INITIAL_FAILURE_STATE;
    if (session.requestHeader() !== undefined) await this.maybeCompact(turn, step, this.effective(await this.options.config()), signal, 'pressure');
    for (;;) {
      if (this.options.beforeRequest) {
        await this.options.beforeRequest(signal);
        if (signal.aborted) throw signal.reason;
      }
      const config = this.effective(await this.options.config());
      if (signal.aborted) throw signal.reason;
      const messages = session.deriveMessages();
      const header = this.logHeader(config, this.buildHeader(config));
      this.options.spendGuard?.beforeSend(session, { turn, step, provider: config.provider, model: config.model, header, messages, ...pricedLimits(config) });
      await this.options.flush();
      if (signal.aborted) throw signal.reason;
      const assembler = new BlockAssembler();
      const chunkSeqs: number[] = [];
      for await (const chunk of this.options.model.stream({ header, messages }, signal)) {
        const event = session.append({ type: 'assistant/chunk', data: { turn, step, chunk } });
        chunkSeqs.push(event.seq);
        assembler.push(chunk);
      }
      if (signal.aborted) {
        const blocks = assembler.interruptedBlocks();
        if (blocks.length > 0) {
          const { usage } = assembler.result();
          session.append({
            type: 'assistant/message',
            data: { turn, step, message: this.assistantMessage(blocks, config), ...(usage ? { usage } : {}), interrupted: true },
            sourceEventSeqs: chunkSeqs,
            surfaceOp: 'append',
          });
        }
        throw signal.reason;
      }
      const result = assembler.result();
      if (result.finish.kind === 'error' || result.finish.kind === 'aborted') {
        const failure = result.finish.failure;
        const estimate = estimateRequestTokens(header, messages);
        if (failure.code === 'CONTEXT_WINDOW_EXCEEDED' && failure.overflow?.contextWindow !== undefined) this.learnWindow(config, failure.overflow.contextWindow, 'overflow-error');
        // The decision is pure (failure-decision.ts); here it is logged and applied.
        const decision = decideFailure(
          {
            failure,
            estimatedPromptTokens: estimate,
            requestedOutputTokens: header.config.maxTokens ?? failure.overflow?.requestedOutputTokens,
            dialect: header.dialect,
            strictEcho: dialectOf({ provider: config.provider }).echo === 'strict',
            ...(this.options.retryPolicy !== undefined ? { retryPolicy: this.options.retryPolicy } : {}),
          },
          failures,
        );
        failures = afterDecision(failures, decision);
        const logRetry = (delayMs: number): void => void session.append({ type: 'llm/retry', data: { turn, step, attempt: failures.retries, delayMs, failure } });
        switch (decision.kind) {
          case 'lower-output': {
            this.turnOutputCap = Math.min(decision.maxOutputTokens, this.turnOutputCap ?? Infinity);
            session.append({
              type: 'llm/warning',
              data: {
                turn,
                step,
                code: 'MAX_OUTPUT_LOWERED',
                message: `the prompt fits the ${decision.contextWindow} token window but not with ${decision.requestedOutputTokens} tokens of output: retrying with max output ${this.turnOutputCap} (no compaction)`,
                ...(failure.overflow?.promptTokens !== undefined ? { reportedPromptTokens: failure.overflow.promptTokens } : {}),
                estimatedPromptTokens: estimate,
                contextWindow: decision.contextWindow,
                maxOutputTokens: this.turnOutputCap,
              },
            });
            logRetry(0);
            continue;
          }
          case 'compact': {
            const window = this.effective(config).contextWindow;
            if (await this.maybeCompact(turn, step, { ...config, ...(window !== undefined ? { contextWindow: window } : {}) }, signal, 'overflow')) {
              session.append({
                type: 'llm/warning',
                data: {
                  turn,
                  step,
                  code: 'CONTEXT_OVERFLOW_COMPACTED',
                  message: `the request did not fit the model's context window${window !== undefined ? ` (${window} tokens)` : ''}: the history was compacted and the request is sent again`,
                  estimatedPromptTokens: estimate,
                  ...(window !== undefined ? { contextWindow: window } : {}),
                },
              });
              logRetry(0);
              continue;
            }
            // Nothing could be compacted: the overflow ends the turn.
            throw new TurnFailure({ ...failure, message: `${failure.message} — ${contextAdvice(this.effective(config), failures.overflowCompacted)}` });
          }
          case 'correct-history':
            // The endpoint refused the history's shape and said which: correct it once, logged (the
            // next header carries the corrected dialect, so the request is rebuildable), never blindly.
            session.append({
              type: 'llm/warning',
              data: {
                turn,
                step,
                code: 'HISTORY_CORRECTED',
                message: `the endpoint refused the history (${failure.message}); ${describeHistoryFix(decision.fix)}`,
                dialect: decision.dialect,
                failure,
              },
            });
            logRetry(0);
            continue;
          case 'retry':
            logRetry(decision.delayMs);
            await this.sleep(decision.delayMs, signal);
            continue;
          case 'fail':
            if (decision.contextAdvice) throw new TurnFailure({ ...failure, message: `${failure.message} — ${contextAdvice(this.effective(config), failures.overflowCompacted)}` });
            throw new TurnFailure(failure);
        }
      }
      session.append({
        type: 'assistant/message',
        data: { turn, step, message: this.assistantMessage(result.blocks, config), ...(result.usage ? { usage: result.usage } : {}) },
        sourceEventSeqs: chunkSeqs,
        surfaceOp: 'append',
      });
      if (result.usage) this.checkTruncation(turn, step, config, estimateRequestTokens(header, messages), result.usage);
      if (result.finish.kind === 'max-tokens') return 'max-tokens';
      const calls = result.blocks.filter((b): b is ToolCallBlock => b.type === 'tool-call');
      if (calls.length === 0) return 'completed';
      await this.runTools(turn, step, calls, signal);
      return 'tools';
    }
  }

  /**
   * Silent truncation: a provider that reports under half the prompt tokens we estimate we sent
   * (and the request was big enough for the estimate to mean something: ≥ 4096 tokens, above a bare system prompt and tool list) cut the
   * prompt without saying so (Ollama keeps only `num_ctx` tokens). Logs `llm/warning{PROMPT_TRUNCATED}`
   * on the step (once per endpoint and model, again only when the window is smaller) and makes the
   * reported size the window in force.
   */
  private checkTruncation(turn: number, step: number, config: AgentModelConfig, estimate: number, usage: TokenUsage): void {
    const reported = usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
    if (estimate < TRUNCATION_MIN_ESTIMATE || reported <= 0 || reported >= estimate * TRUNCATION_RATIO) return;
    const window = reported + usage.outputTokens;
    this.learnWindow(config, window, 'truncated-prompt');
    // Said once per endpoint and model in this lifecycle, and again only for a smaller window: a
    // server that keeps cutting (compaction off, or the estimate still above its window) would
    // otherwise log the same paragraph on every step.
    const key = limitKey(config.baseUrl ?? '', config.model);
    const warned = this.truncationWarned.get(key);
    if (warned !== undefined && warned <= window) return;
    this.truncationWarned.set(key, window);
    const hint = truncationHint(config);
    this.session.append({
      type: 'llm/warning',
      data: {
        turn,
        step,
        code: 'PROMPT_TRUNCATED',
        message: `the server counted ${reported} prompt tokens for a request of about ${estimate}: it cut the prompt without an error, so the model did not see all of it (the system prompt and oldest messages are usually lost). In this session the context window is now taken to be ${window} tokens, so the history is compacted to fit; if another request to this endpoint and model is cut the same way, new sessions start with that window too (Settings shows it, and can forget it).`,
        hint,
        estimatedPromptTokens: estimate,
        reportedPromptTokens: reported,
        contextWindow: window,
      },
    });
  }

  private assistantMessage(blocks: readonly AssistantBlock[], config: AgentModelConfig): AssistantMessage {
    return { id: this.options.newId(), role: 'assistant', content: blocks, source: { kind: 'model', provider: config.provider, model: config.model } };
  }

  private runTools(turn: number, step: number, blocks: readonly ToolCallBlock[], signal: AbortSignal): Promise<void> {
    return runStepTools(
      {
        session: this.session,
        tools: this.options.tools,
        cwd: this.options.cwd,
        files: this.options.files,
        approvalPolicy: this.options.approvalPolicy,
        approvals: this.approvals,
        flush: this.options.flush,
        newId: this.options.newId,
        ...(this.options.onToolOutput ? { onToolOutput: this.options.onToolOutput } : {}),
        ...(this.options.spill ? { spill: this.options.spill } : {}),
        ...(this.options.maxParallelToolCalls !== undefined ? { maxParallelToolCalls: this.options.maxParallelToolCalls } : {}),
        ...(this.options.supervisor ? { supervisor: this.options.supervisor } : {}),
        ...(this.options.toolSecrets ? { secrets: this.options.toolSecrets } : {}),
        ...(this.options.toolOutputCapBytes !== undefined ? { outputCapBytes: this.options.toolOutputCapBytes } : {}),
        ...(this.options.parseToolArguments ? { parseArguments: this.options.parseToolArguments } : {}),
        ...(this.nestedInstructions ? { annotateResult: (call: ToolCallRequest, result: ToolCallResult) => this.nestedInstructions!.annotate(call.callId, result.isError, result.meta) } : {}),
      },
      { turn, step, blocks, signal },
    );
  }
}

/** A reported prompt under this share of our estimate means the server truncated it. */
const TRUNCATION_RATIO = 0.5;
/** Below this estimate (tokens) the comparison says nothing (heuristic noise). */
const TRUNCATION_MIN_ESTIMATE = 4096;

/** The latest `request/context` whose window was learned, in the whole log (learned limits outlive a resume). */
function lastLearnedContext(session: Session): SessionEvent<'request/context'>['data'] | undefined {
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq)!;
    if (event.type === 'request/context') return event.data.contextSource === 'learned' ? event.data : undefined;
  }
  return undefined;
}

/** The latest `request/context` after the last `session/end-seed` (a new lifecycle logs its own). */
function lastRequestContext(session: Session): SessionEvent<'request/context'>['data'] | undefined {
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq)!;
    if (event.type === 'request/context') return event.data;
    if (event.type === 'session/end-seed') return undefined;
  }
  return undefined;
}

/** The route and limits a price check needs from the configuration in force. */
function pricedLimits(config: AgentModelConfig): { baseUrl?: string; contextWindow?: number; maxOutputTokens?: number } {
  return {
    ...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}),
    ...(config.contextWindow !== undefined ? { contextWindow: config.contextWindow } : {}),
    ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
  };
}

/** Any thrown value → the structured failure written into `turn/end{error}`. */
function toFailure(error: unknown): LlmFailure {
  if (error instanceof TurnFailure) return error.failure;
  if (ForklineError.isInstance(error)) return { message: error.message, code: 'UNKNOWN' };
  return { message: errorChain(error), code: 'UNKNOWN' };
}
