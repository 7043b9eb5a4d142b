/**
 * `forkline compact ID [options]`: manual compaction of a stored session between turns (what the
 * app's "Compact what the model sees" does, docs/architecture.md §8): the oldest part of what the
 * model sees is replaced by a summary, nothing is deleted from the log. The summary request is
 * priced and budget-checked like a step's (`--budget`, `--turn-budget`, `--max-tokens-total`, docs/providers.md
 * "Prices, overrides and budgets"): one that could cross a budget is not sent, the bracket's
 * `compaction/end` says why, and the command exits 1 with code BUDGET.
 *
 * Exit codes: 0 compacted, or nothing to compact; 1 the summary failed or a budget refused it.
 */
import { formatUsd } from '../../../shared/pricing.js';
import { costLabel, costTotals, sessionCost } from '../../../shared/session-cost.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, checkModelReady, dataDirOf, modelOverrides, openRuntime, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { cliPriceBook } from '../pricing-options.js';
import { useLastRoute } from '../run-turn.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, 'take-over': { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const { stdout } = ctx;
    const [id, ...rest] = positionals;
    if (!id || rest.length > 0) throw new UsageError('compact needs one session id, e.g. forkline compact ID');
    const runtime = await openRuntime(options);
    try {
      const sessionId = resolveSessionId(runtime, id);
      useLastRoute(runtime, sessionId, Object.keys(modelOverrides(options)).length > 0);
      checkModelReady(runtime);
      const loaded = runtime.repository.load(sessionId);
      if (loaded.repaired > 0) stdout.write(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
      const agent = runtime.host.ensureAgent(sessionId, options['take-over'] === true ? { takeOver: true } : {});
      const outcome = await agent.compact();
      if (!outcome) {
        stdout.write(`nothing to compact\nsession ${sessionId}\n`);
        return 0;
      }
      const events = agent.session.events;
      const cost = sessionCost(events, { fallback: cliPriceBook(dataDirOf(options)).fallback });
      const summarySeq = events.find((e) => e.type === 'compaction/summary' && e.data.compactionId === outcome.compactionId)?.seq;
      const billed = cost.responses.filter((r) => r.kind === 'compaction' && r.seq === summarySeq);
      const label = costLabel(costTotals(billed));
      stdout.write(`compacted ${outcome.shadowedSeqs.length} events into a summary${label !== '' ? ` · cost ${label}` : ''}\n`);
      stdout.write(`session cost ${cost.total.usd !== undefined ? formatUsd(cost.total.usd) : costLabel(cost.total)}\nsession ${sessionId}\n`);
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
