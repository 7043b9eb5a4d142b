/**
 * `forkline replay ID|FILE.jsonl [--json] [--live-tools]` (issue 23): feeds a recorded session's
 * model answers to this build (electron/replay) and says where it would now act differently — the
 * first differing request (JSON path, diff, cause), the first differing tool call, and with
 * `--live-tools` the first turn whose files differ. Nothing is sent to a provider and nothing is
 * written to the session's log.
 *
 * Exit codes: 0 identical, 1 diverged, 2 cannot replay (no such session, a file that is not a
 * session, no checkpoint to run live tools from, the log cannot answer the build's requests
 * before anything diverged).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent, SessionHeader } from '../../../shared/events.js';
import type { ReplayReport } from '../../../shared/replay.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { replaySession } from '../../replay/replay-session.js';
import { readReplayFile } from '../../replay/replay-file.js';
import { WorkspaceCheckpoints } from '../../workspace/checkpoints.js';
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { openStoredSessions, type StoredSessions } from '../stored-sessions.js';

export interface ReplayCommandInput {
  /** A session id (or unique prefix), or the path of a JSONL export. */
  readonly target: string;
  readonly dataDir: string;
  readonly json: boolean;
  readonly liveTools: boolean;
  /** Opens the store (only when `target` is not a file). */
  readonly openStore: () => StoredSessions;
  /** Resolves an id prefix in the store. */
  readonly resolveId: (store: StoredSessions, idOrPrefix: string) => string;
  readonly write: (text: string) => void;
}

/** The exit code of a report. */
export function replayExitCode(report: ReplayReport): 0 | 1 | 2 {
  return report.outcome === 'identical' ? 0 : report.outcome === 'diverged' ? 1 : 2;
}

function indent(text: string, prefix = '    '): string {
  return text
    .split('\n')
    .filter((line, i, all) => line !== '' || i < all.length - 1)
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** The report as text for a terminal. */
export function replayReportText(report: ReplayReport): string {
  const lines: string[] = [];
  const verdict = report.outcome === 'identical' ? 'identical' : report.outcome === 'diverged' ? 'DIVERGED' : 'cannot replay';
  lines.push(`replay of ${visibleInline(report.sessionId)} on this build${report.liveTools ? ' (live tools)' : ''}: ${verdict}`);
  if (report.error) {
    lines.push(`  ${report.error.code}: ${visibleInline(report.error.message)}`);
    return `${lines.join('\n')}\n`;
  }
  const r = report.requests;
  if (r.level === 'not-comparable') lines.push(`requests: not comparable (an imported log has no wire bodies); ${r.replayed} answered from the log`);
  else {
    lines.push(`requests: ${r.logged} logged, ${r.replayed} sent, ${r.identical} identical`);
    const d = r.divergence;
    if (d) {
      lines.push(`  first divergence: ${d.label} (request #${d.index})${d.path !== undefined ? ` at ${d.path}` : ''}`);
      for (const cause of d.causes) lines.push(`  because: ${visibleInline(cause)}`);
      if (d.diff) lines.push(indent(visibleText(d.diff)));
    }
  }
  const t = report.tools;
  const td = t.divergence;
  lines.push(`tool calls: ${t.logged} logged, ${t.replayed} made${td ? '' : ', identical'}`);
  if (td) {
    const call = td.logged ?? td.replayed!;
    lines.push(`  first divergence: call #${td.index} (step ${call.turn}.${call.step}, ${visibleInline(call.name)}): ${td.field}`);
    if (td.logged) lines.push(`    logged:   ${visibleInline(td.logged.name)} ${visibleInline(td.logged.args)} → ${td.logged.outcome}`);
    if (td.replayed) lines.push(`    replayed: ${visibleInline(td.replayed.name)} ${visibleInline(td.replayed.args)} → ${td.replayed.outcome}`);
  }
  if (report.files) {
    const fd = report.files.divergence;
    lines.push(`files: ${report.files.comparedTurns} turn(s) compared with their checkpoints${fd ? '' : ', identical'}`);
    if (fd)
      lines.push(
        `  first divergence: after turn ${fd.turn}: tree ${fd.loggedTree.slice(0, 12)} → ${fd.replayedTree.slice(0, 12)}${fd.paths.length > 0 ? `; ${fd.paths.map(visibleInline).join(', ')}` : ''}`,
      );
  }
  if (report.stopped) lines.push(`stopped: ${visibleInline(report.stopped.reason)}`);
  for (const note of report.notes) lines.push(`note: ${visibleInline(note)}`);
  return `${lines.join('\n')}\n`;
}

function visibleText(text: string): string {
  return text
    .split('\n')
    .map((line) => visibleInline(line))
    .join('\n');
}

/** Loads the session (a store id or a JSONL file), replays it and writes the report; returns the exit code. */
export async function replayCommand(input: ReplayCommandInput): Promise<number> {
  let header: SessionHeader;
  let events: readonly SessionEvent[];
  if (existsSync(input.target) && statSync(input.target).isFile()) {
    const parsed = readReplayFile(readFileSync(input.target, 'utf8'), 'replayed-file');
    header = parsed.header;
    events = parsed.events;
  } else {
    const store = input.openStore();
    try {
      const loaded = store.repository.load(input.resolveId(store, input.target));
      header = loaded.record.header;
      events = loaded.events;
    } finally {
      await store.close();
    }
  }
  const report = await replaySession(header, events, {
    userInstructionsFile: join(input.dataDir, 'AGENTS.md'),
    ...(input.liveTools ? { liveTools: { checkpoints: new WorkspaceCheckpoints(join(input.dataDir, 'checkpoints.git')) } } : {}),
  });
  input.write(input.json ? `${JSON.stringify(report)}\n` : replayReportText(report));
  return replayExitCode(report);
}

/** The command-table entry: `forkline replay ID|FILE.jsonl [--json] [--live-tools]`. */
export const command = defineCommand({
  options: { ...DATA_OPTIONS, json: { type: 'boolean' }, 'live-tools': { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const [target] = positionals;
    if (!target) throw new UsageError('replay needs a session id or a JSONL export');
    return replayCommand({
      target,
      dataDir: dataDirOf(options),
      json: options.json === true,
      liveTools: options['live-tools'] === true,
      openStore: () => openStoredSessions(dataDirOf(options)),
      resolveId: resolveSessionId,
      write: (s) => ctx.stdout.write(s),
    });
  },
});
