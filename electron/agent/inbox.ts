/**
 * The agent's inbox (docs/architecture.md §4; reference runtime `packages/core/agent/src/inbox.ts`): two ordered
 * lists — `next-turn` (follow-ups; each becomes the only prompt of its own turn) and `next-step`
 * (steering and injected context; all claimed at the next step boundary).
 *
 * Every mutation is first logged as one `agent/inbox/spliced` event and then applied, so the inbox
 * is a projection of the log: it is rebuilt by replaying the splices after the session's
 * `seedLength` (a fork child does not inherit its parent's pending inbox; a resumed session keeps
 * its own).
 */
import { Emitter, type Event } from '../../shared/event.js';
import type { InboxTarget, SessionEvent } from '../../shared/events.js';
import type { UserMessage } from '../../shared/messages.js';
import type { Session } from '../session/session.js';

export interface InboxState {
  readonly nextTurn: readonly UserMessage[];
  readonly nextStep: readonly UserMessage[];
}

export class Inbox {
  private nextTurn: UserMessage[] = [];
  private nextStep: UserMessage[] = [];
  private readonly changeEmitter = new Emitter<InboxState>();
  /** Fires after every applied mutation with the new state. */
  readonly onDidChange: Event<InboxState> = this.changeEmitter.event;

  constructor(private readonly session: Session) {
    const from = session.header.seedLength ?? 0;
    for (const event of session.eventsFrom(from)) {
      if (event.type === 'agent/inbox/spliced') this.applySplice(event);
    }
  }

  get state(): InboxState {
    return { nextTurn: [...this.nextTurn], nextStep: [...this.nextStep] };
  }

  get hasWork(): boolean {
    return this.nextTurn.length > 0 || this.nextStep.length > 0;
  }

  get hasNextStep(): boolean {
    return this.nextStep.length > 0;
  }

  private list(target: InboxTarget): UserMessage[] {
    return target === 'next-turn' ? this.nextTurn : this.nextStep;
  }

  private applySplice(event: SessionEvent<'agent/inbox/spliced'>): void {
    const { target, start, removedCount, inserted } = event.data;
    this.list(target).splice(start, removedCount ?? 0, ...inserted);
  }

  private splice(target: InboxTarget, start: number, removedCount: number, inserted: readonly UserMessage[], outcome?: 'canceled'): void {
    const event = this.session.append({
      type: 'agent/inbox/spliced',
      data: {
        target,
        start,
        ...(removedCount > 0 ? { removedCount } : {}),
        inserted,
        ...(outcome ? { outcome } : {}),
      },
    });
    this.applySplice(event);
    this.changeEmitter.fire(this.state);
  }

  /** Appends a message to a list. @throws Error when the id is already queued. */
  add(target: InboxTarget, message: UserMessage): void {
    if ([...this.nextTurn, ...this.nextStep].some((m) => m.id === message.id)) {
      throw new Error(`message ${message.id} is already queued`);
    }
    this.splice(target, this.list(target).length, 0, [message]);
  }

  /** Claims the first follow-up (if any) plus every next-step message, for a new turn's first step. */
  claimForTurn(): UserMessage[] {
    const claimed: UserMessage[] = [];
    if (this.nextTurn.length > 0) {
      claimed.push(this.nextTurn[0]!);
      this.splice('next-turn', 0, 1, []);
    }
    claimed.push(...this.claimNextStep());
    return claimed;
  }

  /** Claims every next-step message (steering, injected context). */
  claimNextStep(): UserMessage[] {
    if (this.nextStep.length === 0) return [];
    const claimed = [...this.nextStep];
    this.splice('next-step', 0, claimed.length, []);
    return claimed;
  }

  /** Removes everything queued, logged with outcome `canceled`. */
  clear(): void {
    if (this.nextTurn.length > 0) this.splice('next-turn', 0, this.nextTurn.length, [], 'canceled');
    if (this.nextStep.length > 0) this.splice('next-step', 0, this.nextStep.length, [], 'canceled');
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
