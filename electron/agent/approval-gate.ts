/**
 * Approval requests of one agent (docs/architecture.md §6): logs `approval/asked` (with the change it shows),
 * waits for exactly one decision (from the UI, the terminal, or an abort), logs `approval/decided`.
 * Pending questions are listed for the UI; an answerer (e.g. the CLI's terminal prompt) may decide
 * automatically.
 *
 * "Allow for this session" grants a standing rule (shared/approval.ts), logged as `approval/rule`
 * right after the decision. The gate reads the rules back from the log when it is created, so a
 * resumed session and a fork whose history holds a rule keep it — except rules in history that
 * did not come from this installation (an imported log must not grant itself permissions; the
 * host says from which seq the history is trusted).
 */
import { ruleAllows, type SessionApprovalRule } from '../../shared/approval.js';
import { ForklineError } from '../../shared/errors.js';
import { Emitter, type Event } from '../../shared/event.js';
import type { ApprovalOutcome } from '../../shared/events.js';
import type { Session } from '../session/session.js';
import type { ApprovalQuestion } from '../tools/pipeline.js';

export interface PendingApproval extends ApprovalQuestion {
  readonly id: string;
}

/**
 * A decision. `allowed-session` grants a rule for the question's tool; for bash it must name the
 * command prefix the rule covers.
 */
export type ApprovalDecision = { readonly outcome: 'allowed-once' | 'rejected' } | { readonly outcome: 'allowed-session'; readonly commandPrefix?: string };

/** Decides a question without the UI (e.g. a terminal prompt); undefined = leave it to the UI. */
export type ApprovalAnswerer = (question: PendingApproval, signal: AbortSignal) => Promise<ApprovalOutcome | ApprovalDecision | undefined>;

/** Tools whose session rule must name a command prefix (a blanket rule would allow any command). */
const PREFIX_TOOLS: ReadonlySet<string> = new Set(['bash']);

export interface ApprovalGateOptions {
  readonly answerer?: ApprovalAnswerer;
  /**
   * `approval/rule` events before this seq are not honoured (history imported from a file, or
   * inherited from one). Default 0: the whole log is this installation's.
   */
  readonly trustRulesFrom?: number;
}

type Settle = (outcome: ApprovalOutcome, rule?: SessionApprovalRule) => void;

export class ApprovalGate {
  private readonly pending = new Map<string, { question: PendingApproval; resolve: Settle }>();
  private readonly rules: SessionApprovalRule[] = [];
  private readonly changeEmitter = new Emitter<readonly PendingApproval[]>();
  /** Fires with the pending questions whenever one is added or decided. */
  readonly onDidChange: Event<readonly PendingApproval[]> = this.changeEmitter.event;
  private readonly answerer: ApprovalAnswerer | undefined;

  constructor(
    private readonly session: Session,
    private readonly newId: () => string,
    options: ApprovalGateOptions | ApprovalAnswerer = {},
  ) {
    const opts: ApprovalGateOptions = typeof options === 'function' ? { answerer: options } : options;
    this.answerer = opts.answerer;
    const trustFrom = opts.trustRulesFrom ?? 0;
    for (const event of session.eventsFrom(trustFrom)) {
      if (event.type === 'approval/rule') this.rules.push(ruleOf(event.data));
    }
  }

  get list(): PendingApproval[] {
    return [...this.pending.values()].map((p) => p.question);
  }

  /** The standing rules of this session, oldest first. */
  get sessionRules(): readonly SessionApprovalRule[] {
    return this.rules;
  }

  /** True when a standing rule covers a call of `toolName` with (validated) `args`. */
  isAllowedByRule(toolName: string, args: unknown): boolean {
    return this.rules.some((rule) => ruleAllows(rule, toolName, args));
  }

  /** Asks and waits. Resolves `cancelled` when `signal` aborts first. */
  async ask(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalOutcome> {
    const id = this.newId();
    const pending: PendingApproval = { ...question, id };
    this.session.append({
      type: 'approval/asked',
      data: { id, callId: question.callId, toolName: question.toolName, reason: question.reason, ...(question.preview !== undefined ? { preview: question.preview } : {}) },
    });
    const decided = await new Promise<{ outcome: ApprovalOutcome; rule?: SessionApprovalRule }>((resolve) => {
      let settled = false;
      const settle: Settle = (outcome, rule) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.changeEmitter.fire(this.list);
        resolve(rule !== undefined ? { outcome, rule } : { outcome });
      };
      const onAbort = () => settle('cancelled');
      if (signal.aborted) return settle('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { question: pending, resolve: settle });
      this.changeEmitter.fire(this.list);
      if (this.answerer) {
        this.answerer(pending, signal).then(
          (answer) => {
            if (answer === undefined) return;
            if (typeof answer === 'string') return settle(answer);
            try {
              const { outcome, rule } = this.resolveDecision(pending, answer);
              settle(outcome, rule);
            } catch {
              settle('unavailable');
            }
          },
          () => settle('unavailable'),
        );
      }
    });
    this.session.append({ type: 'approval/decided', data: { id, outcome: decided.outcome } });
    if (decided.rule !== undefined) {
      this.session.append({ type: 'approval/rule', data: { ...decided.rule, approvalId: id } });
      this.rules.push(decided.rule);
    }
    return decided.outcome;
  }

  /**
   * Records the user's decision.
   * @returns false when no such question is pending.
   * @throws ForklineError INVALID_RULE when `allowed-session` for bash names no (or a compound) prefix.
   */
  decide(id: string, decision: ApprovalDecision | 'allowed-once' | 'rejected'): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    const d: ApprovalDecision = typeof decision === 'string' ? { outcome: decision } : decision;
    const { outcome, rule } = this.resolveDecision(entry.question, d);
    entry.resolve(outcome, rule);
    return true;
  }

  private resolveDecision(question: PendingApproval, decision: ApprovalDecision): { outcome: ApprovalOutcome; rule?: SessionApprovalRule } {
    if (decision.outcome !== 'allowed-session') return { outcome: decision.outcome };
    if (!PREFIX_TOOLS.has(question.toolName)) return { outcome: 'allowed-session', rule: { toolName: question.toolName } };
    const prefix = decision.commandPrefix?.trim() ?? '';
    if (prefix === '') {
      throw new ForklineError('INVALID_RULE', `allowing ${question.toolName} for the session needs a command prefix (e.g. "npm test"): a blanket rule would allow any command`);
    }
    const command = commandOf(question.arguments);
    if (command === undefined || !ruleAllows({ toolName: question.toolName, commandPrefix: prefix }, question.toolName, { command })) {
      throw new ForklineError('INVALID_RULE', `the prefix "${prefix}" does not cover this command (it must start the command at a word boundary, and the command must be a single simple command)`);
    }
    return { outcome: 'allowed-session', rule: { toolName: question.toolName, commandPrefix: prefix } };
  }

  dispose(): void {
    for (const entry of [...this.pending.values()]) entry.resolve('cancelled');
    this.changeEmitter.dispose();
  }
}

function ruleOf(data: { readonly toolName: string; readonly commandPrefix?: string }): SessionApprovalRule {
  return { toolName: data.toolName, ...(data.commandPrefix !== undefined ? { commandPrefix: data.commandPrefix } : {}) };
}

function commandOf(rawArguments: string): string | undefined {
  try {
    const value = JSON.parse(rawArguments) as { command?: unknown };
    return typeof value.command === 'string' ? value.command : undefined;
  } catch {
    return undefined;
  }
}
