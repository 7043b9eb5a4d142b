/**
 * Size: over 500 lines because one replay is one state machine over the logged lifecycles, turns
 * and steps (the scratch session, the plan of answers and results, cancels and crashes re-enacted
 * where the log shows them); the comparison of requests, tools and files lives in its own files.
 *
 * Replay (issue 23): re-drives the current harness — the real Agent, its request building, the tool
 * pipeline — through a logged session's turns, with every model answer taken from the log (no
 * provider is contacted) and, by default, every tool result too (`loggedResultTools`); with live
 * tools the tools really run in a scratch folder restored to the session's first checkpoint.
 *
 * Everything the replay writes goes to a scratch in-memory Session (same header, clock reading the
 * logged times); the stored session is only read. Each lifecycle of the log (the first run, each
 * resume after `session/end-seed`) gets its own Agent, so a resume logs its own header as it did.
 * The log's turns are started one by one; `preStep` enters exactly the user messages the log
 * shows for each step; cancels and crashes are re-enacted where the log shows them (a crash: the
 * scratch log is cut where the recording stopped and closed by the same crash recovery as on load).
 *
 * Compared, each level on its own: every request's body against the logged one (rebuilt from the
 * log as the request inspector does, or the bytes the recording kept); the tool calls (tool-level.ts);
 * with live tools, the folder's tree after each turn against the logged checkpoint.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { StreamChunk } from '../../shared/chunks.js';
import { ForklineError } from '../../shared/errors.js';
import type { CancelCause, InstructionFileRef, SessionEvent, SessionHeader } from '../../shared/events.js';
import type { UserMessage } from '../../shared/messages.js';
import type { FileDivergence, ReplayReport, RequestDivergence, StepTree } from '../../shared/replay.js';
import { Agent, type AgentModelConfig, type AgentOptions } from '../agent/agent.js';
import { ProjectInstructions } from '../agent/project-instructions.js';
import type { ModelClient, ModelRequest } from '../llm/model-client.js';
import { wireRequestFromLog, type LoggedRoute } from '../llm/wire-request.js';
import { closeInterruptedTurn } from '../session/repair.js';
import { Session } from '../session/session.js';
import { createBuiltinTools } from '../tools/builtin-tools.js';
import { InMemoryFileReadTracker } from '../tools/file-read-tracker.js';
import { parseArguments, type ArgumentParse } from '../tools/pipeline.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { WorkspaceCheckpoints } from '../workspace/checkpoints.js';
import { differenceDiff, firstJsonDifference } from './json-path-diff.js';
import { LoggedBodies } from './logged-bodies.js';
import { sameJsonValue, sameJsonValueExcept } from './same-json.js';
import { liveTools, loggedResultTools } from './logged-tools.js';
import { ScratchWorkspace } from './live-workspace.js';
import { readReplayPlan, stepKey, type LoggedAnswer, type LoggedTurn, type ReplayPlan } from './replay-plan.js';
import { divergenceCauses } from './request-causes.js';
import { comparedToolCalls, firstToolDivergence } from './tool-level.js';

/** The build under test's configuration seams (what a change of the build or its settings would change). */
export type ReplayBuildOptions = Pick<Partial<AgentOptions>, 'systemAddendum' | 'systemPrompt' | 'toolOutputCapBytes' | 'parseToolArguments' | 'compaction' | 'retryPolicy' | 'maxParallelToolCalls'>;

export interface ReplayOptions {
  /** The build's tools (default: the built-ins, as the CLI creates them). */
  readonly createTools?: () => ToolDefinition[];
  /** The user-level instructions file (the CLI's `<data dir>/AGENTS.md`); absent: none. */
  readonly userInstructionsFile?: string;
  /** Run the tools for real in a scratch copy of the session's first checkpoint from this shadow repository. */
  readonly liveTools?: { readonly checkpoints: WorkspaceCheckpoints };
  /**
   * SHA-256 (hex) of each request body exactly as the recording sent it, by request index (the
   * corpus keeps them, test/fixtures/replay/*.wire.json): compared as well as the body rebuilt from
   * the log, so a change of the serializer shows too.
   */
  readonly recordedBodySha256?: readonly (string | undefined)[];
  readonly build?: ReplayBuildOptions;
  /** `process.platform` by default (the system prompt names it). */
  readonly platform?: string;
}

const REPLAY_PROMPT = '(replay: the logged messages enter at the step)';

function cancelCauseOf(turn: LoggedTurn | undefined): CancelCause {
  return turn?.reason?.kind === 'aborted' ? turn.reason.cause : { kind: 'user' };
}

function lastOf<T extends SessionEvent['type']>(events: readonly SessionEvent[], type: T, before = events.length): SessionEvent<T> | undefined {
  for (let seq = Math.min(before, events.length) - 1; seq >= 0; seq--) if (events[seq]!.type === type) return events[seq] as SessionEvent<T>;
  return undefined;
}

function systemInstructions(events: readonly SessionEvent[], before = events.length): readonly InstructionFileRef[] {
  for (let seq = Math.min(before, events.length) - 1; seq >= 0; seq--) {
    const e = events[seq]!;
    if (e.type === 'instructions/loaded' && e.data.placement === 'system') return e.data.files;
  }
  return [];
}

/** The (turn, step) the scratch log is in: its last `step/start`. */
function openStep(events: readonly SessionEvent[]): { turn: number; step: number } {
  const e = lastOf(events, 'step/start');
  return e ? { turn: e.data.turn, step: e.data.step } : { turn: 0, step: 0 };
}

/** Waits until `signal` aborts (resolves; never rejects). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

class Replay {
  private readonly plan: ReplayPlan;
  private readonly bodies: LoggedBodies;
  private readonly parse: (raw: string) => ArgumentParse;
  private session!: Session;
  private agent: Agent | undefined;
  private cursor = 0;
  private turn: LoggedTurn | undefined;
  private requestDivergence: RequestDivergence | undefined;
  private identical = 0;
  private replayedRequests = 0;
  private stopped: { code: string; reason: string } | undefined;
  private readonly injected = new Set<string>();
  private crash: { resolve: () => void; atLength?: number; fired: boolean } | undefined;
  private scratch: ScratchWorkspace | undefined;
  private readonly steps: StepTree[] = [];
  private fileDivergence: FileDivergence | undefined;
  private comparedTurns = 0;
  /** Logged message → the replayed message found the same (sameRequestInputs). */
  private readonly matchedMessages = new WeakMap<object, object>();
  private readonly notes: string[] = [];
  private readonly typeSeqs = new Map<string, number[]>();

  constructor(
    private readonly header: SessionHeader,
    private readonly events: readonly SessionEvent[],
    private readonly options: ReplayOptions,
  ) {
    this.plan = readReplayPlan(header, events);
    this.bodies = new LoggedBodies(events);
    this.parse = options.build?.parseToolArguments ?? parseArguments;
  }

  async run(): Promise<Omit<ReplayReport, 'durationMs'>> {
    const { plan } = this;
    const invariants = plan.imported ? 'report' : 'enforce';
    const seed = this.events.slice(0, plan.startSeq);
    if (this.options.liveTools) await this.openScratch();
    try {
      let carried: readonly SessionEvent[] = seed;
      // A crash inside a lifecycle that the log continues (an imported log's) goes on in a new agent.
      const segments = plan.lifecycles.map((l, i) => ({ turns: l.turns, endSeed: l.startsWithEndSeed || (i > 0 && carried.length > 0) }));
      for (let i = 0; i < segments.length && !this.stopped; i++) {
        const segment = segments[i]!;
        this.session = new Session({ header: this.header, seed: carried, markEndSeed: segment.endSeed, now: this.clock(), invariants });
        const agent = this.newAgent();
        this.agent = agent;
        const crashed = await this.driveLifecycle(agent, segment.turns);
        if (crashed) {
          const cut = this.session.events.slice(0, crashed.at);
          await agent.dispose();
          carried = [...cut, ...closeInterruptedTurn(cut, cut.length, this.clock()())];
          const rest = segment.turns.slice(crashed.turnIndex + 1);
          if (rest.length > 0) segments.splice(i + 1, 0, { turns: rest, endSeed: false });
        } else {
          await agent.dispose();
          carried = this.session.events;
        }
      }
      if (plan.lifecycles.length === 0) carried = seed;
      return this.report(carried);
    } finally {
      this.scratch?.dispose();
    }
  }

  /** Runs the lifecycle's turns; on a crash the log shows, returns where to cut the scratch log and which turn crashed. */
  private async driveLifecycle(agent: Agent, turns: readonly LoggedTurn[]): Promise<{ at: number; turnIndex: number } | undefined> {
    const subscription = this.session.onDidAppend((event) => this.onAppend(event));
    try {
      for (const [turnIndex, turn] of turns.entries()) {
        if (this.stopped) return undefined;
        this.turn = turn;
        let crashed!: Promise<void>;
        {
          let resolve!: () => void;
          crashed = new Promise<void>((r) => (resolve = r));
          this.crash = { resolve, fired: false };
        }
        agent.followup(REPLAY_PROMPT);
        const how = await Promise.race([agent.whenIdle().then(() => 'idle' as const), crashed.then(() => 'crash' as const)]);
        if (how === 'crash') {
          // Let calls that answer at once commit, as they had before the recording stopped.
          await nextTick();
          await nextTick();
          return { at: this.crash.atLength ?? this.session.length, turnIndex };
        }
        if (turn.reason?.kind === 'interrupted') {
          // The recording stopped after the turn's last model-visible event (only its end was lost).
          this.notes.push(`turn ${turn.turn}: the recording stopped after its last logged event; this build ended the turn itself`);
        }
        await this.compareFiles(turn.turn);
      }
      return undefined;
    } finally {
      subscription.dispose();
    }
  }

  private stop(code: string, reason: string): void {
    this.stopped ??= { code, reason };
  }

  /** The scratch log's clock: the logged time of the event at the same position (the system prompt's date comes from it). */
  private clock(): () => number {
    const events = this.events;
    return () => {
      const at = Math.min(this.session?.length ?? 0, events.length - 1);
      return events[at]?.time ?? Date.now();
    };
  }

  private newAgent(): Agent {
    const plan = this.plan;
    const cwd = this.scratch?.dir ?? this.header.cwd ?? process.cwd();
    const definitions = (this.options.createTools ?? (() => createBuiltinTools()))();
    const foreign = plan.imported ? [...this.events].flatMap((e) => (e.type === 'assistant/message' ? e.data.message.content.flatMap((b) => (b.type === 'tool-call' ? [b.name] : [])) : [])) : [];
    const tools = this.scratch
      ? liveTools(definitions, this.scratch.dir, this.header.cwd)
      : loggedResultTools(definitions, { result: (callId) => plan.results.get(callId), beforeAnswer: (callId, result) => this.beforeToolAnswer(callId, result) }, foreign);
    const model: ModelClient = { stream: (request, signal) => this.answer(request, signal) };
    const build = this.options.build ?? {};
    return new Agent({
      session: this.session,
      flush: async () => undefined,
      model,
      tools: new ToolRegistry(tools),
      files: new InMemoryFileReadTracker(),
      cwd,
      ...(this.scratch && this.header.cwd !== undefined ? { promptCwd: this.header.cwd } : {}),
      config: () => this.configFor(),
      approvalPolicy: () => 'ask',
      approvalAnswerer: async (question) => plan.approvals.get(question.callId) ?? 'allowed-once',
      newId: randomUUID,
      now: this.clock(),
      platform: this.options.platform ?? process.platform,
      sleep: async (_ms, signal) => {
        if (signal.aborted) throw signal.reason;
      },
      preStep: (_messages, position) => this.enter(position.turn, position.step),
      beforeRequest: (signal) => this.beforeRequest(signal),
      ...(plan.imported ? {} : { instructions: new ProjectInstructions({ cwd, ...(this.options.userInstructionsFile !== undefined ? { userFile: this.options.userInstructionsFile } : {}) }) }),
      ...build,
    });
  }

  /** The last event of `type` before `before` in the log (seqs indexed once per type). */
  private lastLogged<T extends 'request/header' | 'request/context'>(type: T, before: number): SessionEvent<T> | undefined {
    let seqs = this.typeSeqs.get(type);
    if (!seqs) {
      seqs = [];
      for (const e of this.events) if (e.type === type) seqs.push(e.seq);
      this.typeSeqs.set(type, seqs);
    }
    let lo = 0;
    let hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seqs[mid]! < before) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? (this.events[seqs[lo - 1]!] as SessionEvent<T>) : undefined;
  }

  /** The model configuration the log had in force for the next logged request. */
  private configFor(): AgentModelConfig {
    const answer = this.plan.answers[this.cursor] ?? this.plan.answers.at(-1);
    const before = answer?.prefixEnd ?? this.events.length;
    const header = this.lastLogged('request/header', before)?.data.header;
    const context = this.lastLogged('request/context', before)?.data;
    const config = header?.config ?? { provider: context?.provider ?? 'custom', model: context?.model ?? 'unknown' };
    return {
      ...config,
      ...(context?.contextWindow !== undefined ? { contextWindow: context.contextWindow } : {}),
      ...(context?.contextSource !== undefined ? { contextSource: context.contextSource } : {}),
      ...(context?.maxOutputTokens !== undefined ? { maxOutputTokens: context.maxOutputTokens } : {}),
      ...(context?.baseUrl !== undefined ? { baseUrl: context.baseUrl } : {}),
    };
  }

  /** What enters step `step` of `turn`: exactly what the log shows (or the log's block / zero-step turn). */
  private enter(turn: number, step: number): { kind: 'enter'; messages: readonly UserMessage[] } | { kind: 'reject'; reason: string } {
    const logged = this.turn;
    if (logged?.reason?.kind === 'blocked' && step === logged.steps + 1) return { kind: 'reject', reason: 'the logged turn was blocked here' };
    const key = stepKey(turn, step);
    const answered = this.plan.answers.some((a) => a.turn === turn && a.step === step);
    if (logged?.reason?.kind === 'interrupted' && (step > logged.steps || (!answered && !this.plan.stepMessages.has(key)))) {
      // The recording stopped before this step started: cut here.
      this.fireCrash(this.session.length);
      return { kind: 'enter', messages: [] };
    }
    if (step === 1 && logged && logged.steps === 0) return { kind: 'enter', messages: [] };
    return { kind: 'enter', messages: this.plan.stepMessages.get(key) ?? [] };
  }

  /** Before each request: re-enacts a cancel or crash the log shows before any answer of this step; live tools: the tree of the last step. */
  private async beforeRequest(signal: AbortSignal): Promise<void> {
    if (this.scratch) await this.recordTree();
    const { turn, step } = openStep(this.session.events);
    const next = this.plan.answers[this.cursor];
    const hasAnswer = next !== undefined && next.turn === turn && (next.step === step || next.kind === 'compaction');
    if (hasAnswer || signal.aborted) return;
    // The log's turn ended here: cancelled, or an imported log that stops inside it.
    if (this.turn?.reason?.kind === 'aborted' || this.turn?.reason?.kind === 'source-ended') this.agent?.cancel(cancelCauseOf(this.turn), { keepInbox: true });
    else if (this.turn?.reason?.kind === 'interrupted') {
      this.fireCrash();
      await aborted(signal);
    }
  }

  private fireCrash(atLength?: number): void {
    if (!this.crash || this.crash.fired) return;
    this.crash.fired = true;
    if (atLength !== undefined) this.crash.atLength = atLength;
    this.crash.resolve();
  }

  private beforeToolAnswer(callId: string, result: { readonly recovered: boolean; readonly error?: { readonly code: string } } | undefined): 'answer' | 'crash' {
    if (result?.recovered) {
      // The recording stopped before this call answered: cut the scratch log where the log was cut.
      let at: number | undefined;
      if (result.error?.code === 'TOOL_NOT_STARTED') {
        for (let seq = this.session.length - 1; seq >= 0; seq--) {
          const e = this.session.eventAt(seq)!;
          if (e.type === 'tool/call' && e.data.callId === callId) {
            at = seq;
            break;
          }
        }
      }
      this.fireCrash(at ?? this.session.length);
      return 'crash';
    }
    if (result?.error?.code === 'ABORTED') this.agent?.cancel(cancelCauseOf(this.turn), { keepInbox: true });
    return 'answer';
  }

  /** Re-enacts a cancel that hit before the step's calls were dispatched (all logged ABORTED_BEFORE_DISPATCH). */
  private onAppend(event: SessionEvent): void {
    if (event.type !== 'assistant/message' || this.turn?.reason?.kind !== 'aborted') return;
    const first = event.data.message.content.find((b) => b.type === 'tool-call');
    if (first?.type === 'tool-call' && this.plan.results.get(first.id)?.error?.code === 'ABORTED_BEFORE_DISPATCH') this.agent?.cancel(cancelCauseOf(this.turn), { keepInbox: true });
  }

  /** The model: the next logged answer, after comparing the request with the logged one. */
  private async *answer(request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamChunk> {
    if (this.crash?.fired) {
      // Past the point where the recording stopped: nothing more is compared or answered.
      await aborted(signal);
      return;
    }
    const events = this.session.events;
    const kind = events.at(-1)?.type === 'compaction/start' ? 'compaction' : 'step';
    const position = openStep(events);
    const answer = this.plan.answers[this.cursor];
    this.replayedRequests++;
    if (!answer || answer.kind !== kind || (kind === 'step' && (answer.turn !== position.turn || answer.step !== position.step))) {
      const missing = answer !== undefined && (answer.turn < position.turn || (answer.turn === position.turn && answer.step < position.step));
      const where = kind === 'compaction' ? `a compaction summary request in turn ${position.turn}` : `a request at step ${position.turn}.${position.step}`;
      const reason = !answer
        ? `this build sends ${where}, after the last request of the log`
        : answer.kind !== kind
          ? `this build sends ${where} where the log has ${answer.label}`
          : missing
            ? `this build no longer sends ${answer.label}; it sends ${where} instead`
            : `this build sends ${where}, which the log does not have (its next request is ${answer.label})`;
      this.divergeRequest({
        index: answer?.index ?? this.plan.answers.length,
        label: answer?.label ?? where,
        turn: position.turn,
        step: position.step,
        kind: answer && answer.kind !== kind ? 'kind' : missing ? 'missing-request' : 'extra-request',
        causes: [reason],
      });
      this.stop('LOG_CANNOT_ANSWER', `the log cannot answer: ${reason}`);
      // End the turn here: nothing after this point can be answered from the log.
      this.agent?.cancel({ kind: 'user' }, { keepInbox: true });
      yield { type: 'finish', reason: { kind: 'aborted', failure: { code: 'ABORTED', message: `replay: the log cannot answer this request (${reason})` } } };
      return;
    }
    this.cursor++;
    this.compare(answer, request);
    if (kind === 'step') this.prepareNextStep(answer);
    for (const chunk of answer.chunks) {
      if (signal.aborted) return;
      if (chunk.type === 'finish' && chunk.reason.kind === 'aborted') this.agent?.cancel(cancelCauseOf(this.turn), { keepInbox: true });
      yield chunk;
    }
    const finish = answer.chunks.at(-1);
    const succeeded = finish?.type === 'finish' && finish.reason.kind !== 'error' && finish.reason.kind !== 'aborted';
    if (!answer.complete || (succeeded && !answer.messageLogged && this.turn?.reason?.kind === 'interrupted')) {
      // The recording stopped while this answer streamed, or before its message was logged.
      this.fireCrash(this.session.length);
      await aborted(signal);
    }
  }

  /** Steering the log shows entering the next step of this turn: queue a placeholder so the turn goes on (preStep enters the logged messages). */
  private prepareNextStep(answer: LoggedAnswer): void {
    const key = stepKey(answer.turn, answer.step + 1);
    if (this.injected.has(key) || !this.plan.stepMessages.has(key)) return;
    this.injected.add(key);
    this.agent?.inject(REPLAY_PROMPT);
  }

  private divergeRequest(divergence: RequestDivergence): void {
    this.requestDivergence ??= divergence;
  }

  private compare(answer: LoggedAnswer, request: ModelRequest): void {
    if (this.plan.imported || answer.synthesized || this.requestDivergence) return;
    const index = answer.record?.index;
    const recordedHash = index !== undefined ? this.options.recordedBodySha256?.[index] : undefined;
    const loggedRequest = this.bodies.requestOf(answer);
    const context = lastOf(this.session.events, 'request/context')?.data;
    const route: LoggedRoute = context
      ? { provider: context.provider, model: context.model, ...(context.baseUrl !== undefined ? { baseUrl: context.baseUrl } : {}) }
      : { provider: request.header.config.provider, model: request.header.config.model };
    // Fast path: the serializer reads nothing but the request and its route (no clock, no
    // randomness), so inputs that print the same give the same bytes; only a recording that kept
    // the bytes it sent needs this build's bytes to hash.
    if (recordedHash === undefined && !('error' in loggedRequest) && sameJsonValue(loggedRequest.route, route) && sameRequestInputs(loggedRequest.request, request, this.matchedMessages)) {
      this.identical++;
      return;
    }
    const logged = LoggedBodies.serialize(loggedRequest);
    const loggedBody = 'body' in logged ? logged.body : undefined;
    if (loggedBody === undefined) {
      this.notes.push(`${answer.label}: not compared (${'error' in logged ? logged.error : 'no body'})`);
      return;
    }
    let replayedBody: string;
    try {
      replayedBody = wireRequestFromLog(request, route).body;
    } catch (error) {
      replayedBody = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
    const sameAsRecorded = recordedHash === undefined || createHash('sha256').update(replayedBody).digest('hex') === recordedHash;
    if (replayedBody === loggedBody && sameAsRecorded) {
      this.identical++;
      return;
    }
    if (replayedBody === loggedBody) {
      this.divergeRequest({
        index: answer.record?.index ?? answer.index,
        label: answer.label,
        turn: answer.turn,
        step: answer.step,
        kind: 'body',
        path: '(the bytes sent)',
        causes: ['the request serializer changed: the envelope and messages rebuild the same, but the bytes differ from what the recording sent (SHA-256 kept with the recording)'],
        replayedBody,
      });
      return;
    }
    const loggedJson: unknown = JSON.parse(loggedBody);
    const replayedJson: unknown = JSON.parse(replayedBody);
    const difference = firstJsonDifference(loggedJson, replayedJson) ?? { path: '(bytes only: the JSON values are equal)', before: loggedBody, after: replayedBody };
    const causes = divergenceCauses(
      { header: 'body' in logged ? logged.header : request.header, instructions: systemInstructions(this.events, answer.prefixEnd) },
      { header: request.header, instructions: systemInstructions(this.session.events) },
      { path: difference.path, logged: loggedJson, replayed: replayedJson },
    );
    this.divergeRequest({
      index: answer.record?.index ?? answer.index,
      label: answer.label,
      turn: answer.turn,
      step: answer.step,
      kind: 'body',
      path: difference.path,
      ...('before' in difference ? { before: JSON.stringify(difference.before) } : {}),
      ...('after' in difference ? { after: JSON.stringify(difference.after) } : {}),
      diff: differenceDiff(difference),
      causes,
      loggedBody,
      replayedBody,
    });
  }

  private async openScratch(): Promise<void> {
    const checkpoints = this.options.liveTools!.checkpoints;
    const first = [...this.plan.checkpoints.entries()].sort((a, b) => a[0] - b[0])[0];
    if (!first) throw new ForklineError('NO_CHECKPOINT', 'this session has no workspace checkpoint, so its tools cannot run live (record it in a folder with checkpoints on)');
    try {
      this.scratch = await ScratchWorkspace.restore(checkpoints, first[1]);
    } catch (error) {
      throw new ForklineError('NO_CHECKPOINT', `the session's first checkpoint ${first[1].slice(0, 12)} cannot be restored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async recordTree(): Promise<void> {
    const last = lastOf(this.session.events, 'step/end');
    if (!last || !this.scratch) return;
    const { turn, step } = last.data;
    if (this.steps.some((s) => s.turn === turn && s.step === step)) return;
    this.steps.push({ turn, step, tree: await this.scratch.tree() });
  }

  private async compareFiles(turn: number): Promise<void> {
    if (!this.scratch) return;
    await this.recordTree();
    const commit = this.plan.checkpoints.get(turn);
    if (commit === undefined || this.fileDivergence) return;
    const replayedTree = await this.scratch.tree();
    let loggedTree: string;
    try {
      loggedTree = await this.scratch.checkpointTree(commit);
    } catch {
      this.notes.push(`turn ${turn}: the logged checkpoint ${commit.slice(0, 12)} is not in the checkpoint repository; files not compared`);
      return;
    }
    this.comparedTurns++;
    if (loggedTree !== replayedTree) this.fileDivergence = { turn, loggedTree, replayedTree, paths: await this.scratch.changedPaths(loggedTree, replayedTree) };
  }

  private report(replayed: readonly SessionEvent[]): Omit<ReplayReport, 'durationMs'> {
    const { plan } = this;
    if (!this.stopped && !this.requestDivergence && this.cursor < plan.answers.length) {
      const answer = plan.answers[this.cursor]!;
      this.divergeRequest({
        index: answer.record?.index ?? answer.index,
        label: answer.label,
        turn: answer.turn,
        step: answer.step,
        kind: 'missing-request',
        causes: [`this build no longer sends ${answer.label} (${plan.answers.length - this.cursor} logged requests were not made)`],
      });
    }
    const logged = comparedToolCalls(this.events, plan.startSeq, parseArguments);
    const mine = comparedToolCalls(replayed, plan.startSeq, this.parse);
    // A stopped replay compares the calls it reached.
    const toolDivergence = firstToolDivergence(this.stopped ? logged.slice(0, mine.length) : logged, mine);
    const diverged = (!plan.imported && this.requestDivergence !== undefined) || toolDivergence !== undefined || this.fileDivergence !== undefined;
    if (plan.imported) this.notes.push('imported log: it records no wire bodies, so requests are not comparable; tool calls are compared');
    return {
      sessionId: this.header.id,
      outcome: diverged ? 'diverged' : this.stopped ? 'cannot-replay' : 'identical',
      imported: plan.imported,
      liveTools: this.scratch !== undefined,
      requests: {
        level: plan.imported ? 'not-comparable' : 'compared',
        logged: plan.answers.length,
        replayed: this.replayedRequests,
        identical: this.identical,
        ...(!plan.imported && this.requestDivergence ? { divergence: this.requestDivergence } : {}),
      },
      tools: { logged: logged.length, replayed: mine.length, ...(toolDivergence ? { divergence: toolDivergence } : {}) },
      ...(this.scratch ? { files: { comparedTurns: this.comparedTurns, steps: this.steps, ...(this.fileDivergence ? { divergence: this.fileDivergence } : {}) } } : {}),
      ...(this.stopped ? { stopped: this.stopped } : {}),
      notes: this.notes,
    };
  }
}

/**
 * Replays a logged session (header and its recovered events, e.g. `SessionRepository.load`) on
 * this build. Never writes to the session's store; with live tools it writes only to a temporary
 * folder (removed afterwards) and an index file of the checkpoint repository.
 * @returns the report; `outcome: 'cannot-replay'` with `error` when the session cannot be replayed
 *   (e.g. NO_CHECKPOINT with live tools), never a throw for such input.
 */
export async function replaySession(header: SessionHeader, events: readonly SessionEvent[], options: ReplayOptions = {}): Promise<ReplayReport> {
  const started = performance.now();
  try {
    const report = await new Replay(header, events, options).run();
    return { ...report, durationMs: performance.now() - started };
  } catch (error) {
    const code = ForklineError.isInstance(error) ? error.code : 'REPLAY_FAILED';
    return {
      sessionId: header.id,
      outcome: 'cannot-replay',
      imported: header.origin?.kind === 'imported',
      liveTools: options.liveTools !== undefined,
      requests: { level: header.origin?.kind === 'imported' ? 'not-comparable' : 'compared', logged: 0, replayed: 0, identical: 0 },
      tools: { logged: 0, replayed: 0 },
      error: { code, message: error instanceof Error ? error.message : String(error) },
      notes: [],
      durationMs: performance.now() - started,
    };
  }
}

/**
 * Whether two requests give the serializer the same input: the same envelope and the same messages
 * but for each message's `id`, which is the log's own identity and never sent (a replay mints new
 * ones; test/unit/llm/request-serializer.test.ts, "a message's id is never sent", holds the serializer to that).
 */
function sameRequestInputs(logged: ModelRequest, replayed: ModelRequest, matched: WeakMap<object, object>): boolean {
  if (logged.messages.length !== replayed.messages.length || !sameJsonValue(logged.header, replayed.header)) return false;
  for (let i = 0; i < logged.messages.length; i++) {
    const [a, b] = [logged.messages[i]!, replayed.messages[i]!];
    // Both sides keep a message's object from one request to the next, unchanged (Session.
    // deriveMessages shares them; LoggedBodies keeps its projections): a pair found
    // the same for an earlier request is not walked again, so a session is not compared in O(n²).
    if (matched.get(a) === b) continue;
    if (!sameJsonValueExcept(a, b, 'id')) return false;
    matched.set(a, b);
  }
  return true;
}
