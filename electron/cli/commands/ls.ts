/**
 * `forkline ls [--json]`: the stored sessions, newest first (id, last change, events, title, lineage,
 * whether imported, folder). Reads only the store: no agent, model
 * client, tools, MCP or importer code is loaded (test/integration/cli/ls-module-graph.test.ts).
 */
import { isImportedSession } from '../../../shared/events.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { defineCommand } from '../command.js';
import { sessionCostJson } from '../cost-json.js';
import { DATA_OPTIONS, dataDirOf } from '../engine-options.js';
import { jsonLine, sessionListEntry } from '../json-output.js';
import { cliPriceBook } from '../pricing-options.js';
import { openStoredSessions } from '../stored-sessions.js';

export const command = defineCommand({
  options: { ...DATA_OPTIONS, json: { type: 'boolean' } },
  async run(ctx, { options }) {
    const out = (s: string) => ctx.stdout.write(s);
    const runtime = openStoredSessions(dataDirOf(options));
    try {
      const rows = runtime.repository.list();
      if (options.json) {
        const book = cliPriceBook(dataDirOf(options));
        out(jsonLine(rows.map((r) => ({ ...sessionListEntry(r), cost: sessionCostJson(runtime.repository.store.readAll(r.header.id), book) }))));
        return 0;
      }
      if (rows.length === 0) out('no sessions yet\n');
      for (const r of rows) {
        const lineage = r.header.parentSession ? `  ⑂ ${r.header.parentSession.slice(0, 8)}` : '';
        const imported = isImportedSession(r.header) ? '  (imported)' : '';
        // The folder last: the same task run in two folders reads alike otherwise.
        const folder = r.header.cwd ? `  in ${r.header.cwd}` : '';
        out(
          `${visibleInline(r.header.id)}  ${new Date(r.updatedAt).toISOString()}  ${String(r.eventCount).padStart(6)} events  ${visibleInline(r.header.title ?? '(untitled)')}${visibleInline(lineage)}${imported}${visibleInline(folder)}\n`,
        );
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
