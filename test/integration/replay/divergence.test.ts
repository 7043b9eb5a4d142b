/**
 * The replay's done-when cases (issue 23), each injected through a real configuration seam of the
 * build (Agent options the CLI and fan-out use), never by mocking: a tool output cap that formats a
 * result differently diverges at the first request after that result; a different argument parser
 * diverges at the tool level while every request stays byte-identical; a system prompt addendum
 * diverges at the first request, at the system message. Sessions come from the recorded corpus.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReplayFile } from '../../../electron/replay/replay-file.js';
import { replaySession } from '../../../electron/replay/replay-session.js';
import { parseArguments } from '../../../electron/tools/pipeline.js';
import { CORPUS_DIR } from '../../support/replay-record.js';

function corpus(name: string) {
  return readReplayFile(readFileSync(join(CORPUS_DIR, `${name}.jsonl`), 'utf8'), name);
}

describe('replay divergence by level', () => {
  it('an unchanged build replays the session identically (the baseline of these cases)', async () => {
    const { header, events } = corpus('fix-sum-custom');
    const report = await replaySession(header, events);
    expect(report.outcome).toBe('identical');
    expect(report.requests).toMatchObject({ logged: 5, replayed: 5, identical: 5 });
  });

  it('a system prompt change diverges at the first step request, at the system message, and says the build changed it', async () => {
    const { header, events } = corpus('fix-sum-custom');
    const report = await replaySession(header, events, { build: { systemAddendum: '.' } });
    expect(report.outcome).toBe('diverged');
    const d = report.requests.divergence!;
    expect(d).toMatchObject({ index: 0, label: 'step 1.1', kind: 'body', path: 'messages[0].content' });
    expect(JSON.parse(d.loggedBody!).messages[0].role).toBe('system');
    expect(d.causes[0]).toContain('the system prompt changed');
    expect(d.diff).toContain('+.');
    // The model's answers still come from the log, so the tool calls are the same.
    expect(report.tools.divergence).toBeUndefined();
  });

  it('a change in how a tool result is formatted diverges at the first request after that result', async () => {
    const { header, events } = corpus('fix-sum-custom');
    const cap = 300;
    // The first logged result longer than the cap, and the request made after it.
    const result = events.find((e) => e.type === 'tool/result' && Buffer.byteLength(JSON.stringify(e.data.message.content[0]?.content), 'utf8') > cap + 40);
    expect(result?.type).toBe('tool/result');
    const at = result!.type === 'tool/result' ? result!.data : undefined;
    const report = await replaySession(header, events, { build: { toolOutputCapBytes: cap } });
    expect(report.outcome).toBe('diverged');
    const d = report.requests.divergence!;
    expect(d.kind).toBe('body');
    expect(d.label).toBe(`step ${at!.turn}.${at!.step + 1}`);
    expect(d.path).toMatch(/^messages\[\d+\]\.content$/);
    const index = Number(/\[(\d+)\]/.exec(d.path!)![1]);
    expect(JSON.parse(d.replayedBody!).messages[index].role).toBe('tool');
    expect(d.after).toContain('omitted from the middle of this output');
    expect(d.causes.join(' ')).toContain('the result of tool call');
  });

  it('a change in tool-call argument parsing diverges at the tool level, with the same request bytes', async () => {
    const { header, events } = corpus('fix-sum-custom');
    // A parser that reads paths case-insensitively (upper-cases them).
    const parse = (raw: string) => {
      const parsed = parseArguments(raw);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || !('path' in parsed.value)) return parsed;
      return { ok: true as const, value: { ...parsed.value, path: String((parsed.value as { path: unknown }).path).toUpperCase() } };
    };
    const report = await replaySession(header, events, { build: { parseToolArguments: parse } });
    expect(report.outcome).toBe('diverged');
    expect(report.requests.divergence).toBeUndefined();
    expect(report.requests.identical).toBe(5);
    expect(report.tools.divergence).toMatchObject({ index: 0, field: 'args', logged: { name: 'read_file', args: '{"path":"sum.js"}' }, replayed: { name: 'read_file', args: '{"path":"SUM.JS"}' } });
  });

  it('a parser that refuses what the recording ran shows as a refusal at the tool level', async () => {
    const { header, events } = corpus('fix-sum-custom');
    const strict = (raw: string) => (raw.includes('old_string') ? { ok: false as const, message: 'edits are refused by this parser' } : parseArguments(raw));
    const report = await replaySession(header, events, { build: { parseToolArguments: strict } });
    expect(report.tools.divergence).toMatchObject({ field: 'args', logged: { name: 'edit_file', outcome: 'ran' }, replayed: { name: 'edit_file', outcome: 'refused:INVALID_ARGS' } });
    // The refusal's text reaches the model: the next request differs too.
    expect(report.requests.divergence?.label).toBe('step 1.4');
  });

  it('an imported log is not comparable at the request level; its tool level still diverges', async () => {
    const { header, events } = corpus('imported-claude-code');
    const same = await replaySession(header, events);
    expect(same).toMatchObject({ outcome: 'identical', imported: true, requests: { level: 'not-comparable' } });
    expect(same.tools.logged).toBeGreaterThan(0);
    const refuseAll = () => ({ ok: false as const, message: 'nothing parses' });
    const changed = await replaySession(header, events, { build: { parseToolArguments: refuseAll } });
    expect(changed.outcome).toBe('diverged');
    expect(changed.requests.divergence).toBeUndefined();
    expect(changed.tools.divergence?.index).toBe(0);
  });

  it('a serializer change (same envelope and messages, other bytes than the recording sent) is a divergence', async () => {
    const { header, events } = corpus('fix-sum-custom');
    const wire = JSON.parse(readFileSync(join(CORPUS_DIR, 'fix-sum-custom.wire.json'), 'utf8')) as string[];
    const report = await replaySession(header, events, { recordedBodySha256: ['0'.repeat(64), ...wire.slice(1)] });
    expect(report.outcome).toBe('diverged');
    expect(report.requests.divergence).toMatchObject({ index: 0, path: '(the bytes sent)' });
    expect(report.requests.divergence!.causes[0]).toContain('serializer');
  });
});
