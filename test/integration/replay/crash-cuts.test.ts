/**
 * A crash at any point replays (issue 23): for every seq of a recorded session, the log cut there
 * and closed by crash recovery (`closeInterruptedTurn`, what every load does) — a process that
 * died mid-stream, mid-tool, between steps — replays identically on this build: the replay stops
 * where the recording stopped and closes its scratch log the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayReportText } from '../../../electron/cli/commands/replay.js';
import { readReplayFile } from '../../../electron/replay/replay-file.js';
import { replaySession } from '../../../electron/replay/replay-session.js';
import { closeInterruptedTurn } from '../../../electron/session/repair.js';
import { CORPUS_DIR } from '../../support/replay-record.js';

describe('replay of a log cut by a crash', () => {
  it.each(['fix-sum-custom', 'parallel-tools', 'compaction'])(
    '%s: the recovered prefix replays identically at every cut point',
    async (name) => {
      const { header, events } = readReplayFile(readFileSync(join(CORPUS_DIR, `${name}.jsonl`), 'utf8'), 'cut');
      const failures: string[] = [];
      let interrupted = 0;
      for (let cut = 1; cut < events.length; cut++) {
        const prefix = events.slice(0, cut);
        const closers = closeInterruptedTurn(prefix, prefix.length, prefix[prefix.length - 1]!.time);
        if (closers.length > 0) interrupted++;
        const report = await replaySession(header, [...prefix, ...closers], { platform: 'linux' });
        if (report.outcome !== 'identical') failures.push(`cut at ${cut} (${events[cut - 1]!.type}):\n${replayReportText(report)}`);
      }
      expect(interrupted).toBeGreaterThan(events.length / 2);
      expect(failures.slice(0, 3).join('\n')).toBe('');
    },
    120_000,
  );
});
