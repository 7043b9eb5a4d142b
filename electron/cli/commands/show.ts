/** `forkline show ID [--json]`: a stored session's timeline (text with seqs, or one JSON document). Reads only the store. */
import type { SessionEvent } from '../../../shared/events.js';
import { sessionCost } from '../../../shared/session-cost.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { leftoverNotice } from '../../store/session-repository.js';
import { defineCommand } from '../command.js';
import { sessionCostJson } from '../cost-json.js';
import { DATA_OPTIONS, dataDirOf, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { jsonLine, sessionShowJson } from '../json-output.js';
import { cliPriceBook } from '../pricing-options.js';
import { openStoredSessions } from '../stored-sessions.js';
import { TimelineText } from '../timeline-text.js';
import { tokenText, totalText } from './price.js';

export const command = defineCommand({
  options: { ...DATA_OPTIONS, json: { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const out = (s: string) => ctx.stdout.write(s);
    const [id] = positionals;
    if (!id) throw new UsageError('show needs a session id');
    const runtime = openStoredSessions(dataDirOf(options));
    try {
      const loaded = runtime.repository.load(resolveSessionId(runtime, id));
      if (options.json) {
        out(jsonLine({ ...sessionShowJson(loaded.record, loaded.events, loaded.repaired), cost: sessionCostJson(loaded.events, cliPriceBook(dataDirOf(options)), { turns: true }) }));
        return 0;
      }
      const h = loaded.record.header;
      const spawnedBy = h.origin?.kind === 'imported' ? h.origin.spawnedBy : undefined;
      const origin =
        h.origin?.kind === 'imported'
          ? `\nimported from ${visibleInline(h.origin.file ?? 'a file')} (${visibleInline(h.origin.format)}): shown only; nothing in it is used to act` +
            (spawnedBy ? `\na sub-agent${spawnedBy.agentId ? ` (${visibleInline(spawnedBy.agentId)})` : ''} started by session ${visibleInline(spawnedBy.sessionId)}` : '')
          : '';
      out(
        `session ${visibleInline(h.id)}${h.title ? ` — ${visibleInline(h.title)}` : ''}\nworkspace ${visibleInline(h.cwd ?? '(none)')}${h.parentSession ? `\nforked from ${visibleInline(h.parentSession)} after seq ${(h.seedLength ?? 1) - 1}` : ''}${origin}\n`,
      );
      if (loaded.repaired > 0) out(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
      for (const left of loaded.leftovers) out(`! ${leftoverNotice(left)}\n`);
      if (loaded.ownedElsewhere) out(`${heldElsewhereNotice(loaded.events)}\n`);
      const book = cliPriceBook(dataDirOf(options));
      const printer = new TimelineText({
        live: false,
        color: ctx.color,
        seqs: true,
        ...(h.parentSession !== undefined && h.seedLength !== undefined ? { forkSeq: h.seedLength } : {}),
        fallbackPrice: book.fallback,
      });
      for (const event of loaded.events) out(printer.render(event));
      const cost = sessionCost(loaded.events, { fallback: book.fallback });
      if (cost.responses.length > 0) out(`session cost: ${totalText(cost.total)} · ${tokenText(cost.total)}${cost.snapshots.length > 0 ? ` · prices ${cost.snapshots.join(', ')}` : ''}\n`);
      return 0;
    } finally {
      await runtime.close();
    }
  },
});

/**
 * The line for a session another running Forkline holds: a turn it is running is shown as stored
 * so far (it is not closed here, as recovery would for a dead owner); a finished one is just open there.
 */
function heldElsewhereNotice(events: readonly SessionEvent[]): string {
  let open: number | undefined;
  for (const e of events) {
    if (e.type === 'turn/start') open = e.data.turn;
    else if (e.type === 'turn/end') open = undefined;
  }
  return open !== undefined
    ? `! open in another running Forkline, which is running turn ${open}: shown as stored so far (that turn is not closed here)`
    : 'note: this session is open in another running Forkline (shown as stored)';
}
