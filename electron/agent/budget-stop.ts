/**
 * The typed refusal of the pre-request budget check (docs/providers.md "Prices, overrides and
 * budgets"), in a file of its own so that both the check (spend-guard.ts) and compaction
 * (compaction.ts, which logs the refusal in `compaction/end`) can name it without an import cycle.
 */
import { ForklineError } from '../../shared/errors.js';
import type { BudgetStopFacts } from '../../shared/events.js';

/**
 * Thrown by the spend guard's `beforeSend`: the request was not sent. A step's turn ends with
 * reason `budget`; a compaction's bracket closes with `budget` set. Code `BUDGET`.
 */
export class BudgetStop extends ForklineError {
  constructor(readonly facts: BudgetStopFacts) {
    super('BUDGET', facts.message);
    this.name = 'BudgetStop';
  }
}
