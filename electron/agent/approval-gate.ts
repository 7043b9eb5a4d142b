/**
 * Approval requests of one agent (DESIGN §6): logs `approval/asked`, waits for exactly one decision
 * (from the UI, the terminal, or an abort), logs `approval/decided`. Pending questions are listed for
 * the UI; an answerer (e.g. the CLI's terminal prompt) may decide automatically.
 */
import { Emitter, type Event } from '../../shared/event.js';
import type { ApprovalOutcome } from '../../shared/events.js';
import type { Session } from '../session/session.js';
import type { ApprovalQuestion } from '../tools/pipeline.js';

export interface PendingApproval extends ApprovalQuestion {
  readonly id: string;
}

/** Decides a question without the UI (e.g. a terminal prompt); undefined = leave it to the UI. */
export type ApprovalAnswerer = (question: PendingApproval, signal: AbortSignal) => Promise<ApprovalOutcome | undefined>;

export class ApprovalGate {
  private readonly pending = new Map<string, { question: PendingApproval; resolve: (outcome: ApprovalOutcome) => void }>();
  private readonly changeEmitter = new Emitter<readonly PendingApproval[]>();
  /** Fires with the pending questions whenever one is added or decided. */
  readonly onDidChange: Event<readonly PendingApproval[]> = this.changeEmitter.event;

  constructor(
    private readonly session: Session,
    private readonly newId: () => string,
    private readonly answerer?: ApprovalAnswerer,
  ) {}

  get list(): PendingApproval[] {
    return [...this.pending.values()].map((p) => p.question);
  }

  /** Asks and waits. Resolves `cancelled` when `signal` aborts first. */
  async ask(question: ApprovalQuestion, signal: AbortSignal): Promise<ApprovalOutcome> {
    const id = this.newId();
    const pending: PendingApproval = { ...question, id };
    this.session.append({ type: 'approval/asked', data: { id, callId: question.callId, toolName: question.toolName, reason: question.reason } });
    const outcome = await new Promise<ApprovalOutcome>((resolve) => {
      let settled = false;
      const settle = (value: ApprovalOutcome) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.changeEmitter.fire(this.list);
        resolve(value);
      };
      const onAbort = () => settle('cancelled');
      if (signal.aborted) return settle('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { question: pending, resolve: settle });
      this.changeEmitter.fire(this.list);
      if (this.answerer) {
        this.answerer(pending, signal).then(
          (answer) => {
            if (answer !== undefined) settle(answer);
          },
          () => settle('unavailable'),
        );
      }
    });
    this.session.append({ type: 'approval/decided', data: { id, outcome } });
    return outcome;
  }

  /** Records the user's decision. @returns false when no such question is pending. */
  decide(id: string, outcome: 'allowed-once' | 'rejected'): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    entry.resolve(outcome);
    return true;
  }

  dispose(): void {
    for (const entry of [...this.pending.values()]) entry.resolve('cancelled');
    this.changeEmitter.dispose();
  }
}
