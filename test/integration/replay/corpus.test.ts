/**
 * The replay corpus (issue 23): every recorded session in test/fixtures/replay/ is replayed on this
 * build — model answers and tool results from the log, request bodies compared with the ones
 * rebuilt from the log and with the SHA-256 of the bytes the recording sent — and must be
 * identical. An intended change of what Forkline sends is accepted by re-recording:
 * `npm run replay:record` (README, "Replay"); the fixtures' diff then shows what changed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayReportText } from '../../../electron/cli/commands/replay.js';
import { replaySession } from '../../../electron/replay/replay-session.js';
import { readReplayFile } from '../../../electron/replay/replay-file.js';
import { requestLog } from '../../../shared/request-log.js';
import { CORPUS_DIR } from '../../support/replay-record.js';

const names = readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length))
  .sort();

function load(name: string) {
  const parsed = readReplayFile(readFileSync(join(CORPUS_DIR, `${name}.jsonl`), 'utf8'), name);
  const wireFile = join(CORPUS_DIR, `${name}.wire.json`);
  const wire = existsSync(wireFile) ? (JSON.parse(readFileSync(wireFile, 'utf8')) as string[]) : undefined;
  return { ...parsed, wire };
}

describe('the replay corpus', () => {
  it('holds at least 20 sessions covering every dialect, compaction, cancel, crash recovery, parallel tools and imported logs', () => {
    expect(names.length).toBeGreaterThanOrEqual(20);
    const all = names.map((n) => ({ name: n, ...load(n) }));
    const providers = new Set(all.flatMap((s) => s.events.flatMap((e) => (e.type === 'request/header' ? [e.data.header.config.provider] : []))));
    for (const p of ['custom', 'deepseek', 'openai', 'openrouter', 'gemini', 'ollama', 'vllm', 'llamacpp', 'lmstudio']) expect(providers).toContain(p);
    const has = (pred: (s: (typeof all)[number]) => boolean) => all.some(pred);
    expect(has((s) => requestLog(s.events).some((r) => r.ref.kind === 'compaction'))).toBe(true);
    expect(has((s) => s.events.some((e) => e.type === 'turn/end' && e.data.reason.kind === 'aborted'))).toBe(true);
    expect(has((s) => s.events.some((e) => e.type === 'turn/end' && e.data.reason.kind === 'interrupted') && !s.header.origin?.kind.startsWith('imported'))).toBe(true);
    expect(has((s) => s.events.some((e) => e.type === 'assistant/message' && e.data.message.content.filter((b) => b.type === 'tool-call').length >= 3))).toBe(true);
    for (const format of ['claude-code', 'codex', 'openhands']) expect(has((s) => s.header.origin?.kind === 'imported' && s.header.origin.format === format)).toBe(true);
  });

  for (const name of names) {
    it(`${name} replays identically`, async () => {
      const { header, events, wire } = load(name);
      const report = await replaySession(header, events, wire ? { recordedBodySha256: wire } : {});
      expect(report.outcome, replayReportText(report)).toBe('identical');
      if (header.origin?.kind === 'imported') expect(report.requests.level).toBe('not-comparable');
      else {
        expect(report.requests.identical).toBe(report.requests.logged);
        expect(report.requests.logged).toBeGreaterThan(0);
      }
      expect(report.tools.replayed).toBe(report.tools.logged);
    });
  }
});
