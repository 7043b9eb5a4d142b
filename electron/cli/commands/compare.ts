/**
 * `forkline compare A B [--json]`: two branches side by side (turns, tokens, cost, time, file diff);
 * with three or more ids, or --json, the branches ranked as fanout ranks them (fanout.ts).
 */
import { durationPair } from '../../../shared/figure-text.js';
import { branchCostLabel } from '../../../shared/session-cost.js';
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, commandContext, openRuntime, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, json: { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const out = (s: string) => ctx.stdout.write(s);
    const [a, b] = positionals;
    if (!a || !b) throw new UsageError('compare needs two session ids');
    const runtime = await openRuntime(options);
    try {
      if (options.json || positionals.length > 2) return await (await import('./fanout.js')).compareRankedCommand(commandContext(runtime), [...positionals], options.json === true);
      const connection = runtime.host.connect(() => undefined);
      const result = await connection.compareSessions({ a: resolveSessionId(runtime, a), b: resolveSessionId(runtime, b) });
      connection.dispose();
      out(`common history: ${result.commonLength} events\n`);
      // The two times at the precision that tells them apart (40 ms vs 48 ms, never 0.0 s vs 0.0 s).
      const times = durationPair(result.a.stats.durationMs, result.b.stats.durationMs);
      for (const [i, side] of [result.a, result.b].entries()) {
        const s = side.stats;
        out(
          `\n${visibleInline(side.sessionId)}  ${visibleInline(side.title ?? '')}\n  first prompt: ${visibleInline(s.firstPrompt ?? '(none)')}\n  ${count(s.turns, 'turn')}, ${count(s.steps, 'step')}, ${count(s.toolCalls, 'tool call')}, ${times[i]}\n  tokens: input ${s.inputTokens + s.cacheReadTokens} (${s.cacheReadTokens} cached), output ${s.outputTokens}${s.reasoningTokens ? ` (${s.reasoningTokens} reasoning)` : ''}\n  cost: ${branchCostLabel(s)}\n  last turn: ${visibleInline(String(s.lastTurnEnd ?? '(none)'))}\n`,
        );
      }
      out(`\nfiles that differ (${result.files.length}):\n${result.files.map((f) => `  ${visibleInline(f.status)} ${visibleInline(f.path)}`).join('\n')}\n`);
      if (result.diffNote) out(`(${visibleInline(result.diffNote)})\n`);
      if (result.diff) out(`\n${visibleText(result.diff)}`);
      return 0;
    } finally {
      await runtime.close();
    }
  },
});

/** `1 turn`, `2 turns`. */
function count(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}
