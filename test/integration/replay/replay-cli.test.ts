/**
 * `forkline replay` end to end (issue 23): a session recorded by the real CLI against the scripted
 * server is replayed by the CLI — identical (exit 0), with live tools in a scratch folder at its
 * first checkpoint (files compared), after a one-character change of the user's AGENTS.md (exit 1,
 * the first request, the system message, the file named), and as a JSON report. The stored log is
 * never written to; a session that cannot be replayed exits 2.
 */
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../../shared/replay.js';
import { forkline, ROOT } from '../../support/cli-process.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

let llm: ScriptedLlm;
let dataDir: string;
let work: string;
let id: string;

const eventCount = async (): Promise<number> => (JSON.parse((await forkline(['ls', '--json'], { dataDir })).stdout) as { id: string; eventCount: number }[]).find((s) => s.id === id)!.eventCount;

beforeAll(async () => {
  llm = await startScriptedLlm();
  dataDir = mkdtempSync(join(tmpdir(), 'forkline-replay-cli-'));
  work = realpathSync(mkdtempSync(join(tmpdir(), 'forkline-replay-cli-ws-')));
  cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
  writeFileSync(join(dataDir, 'AGENTS.md'), 'Answer briefly.\n');
  llm.enqueue(
    toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"sum.js"}' }]),
    toolCallResponse([{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
    toolCallResponse([{ id: 't1', name: 'bash', arguments: '{"command":"node test.js"}' }]),
    textResponse('Fixed.'),
  );
  const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--approval', 'allow', 'fix the sum'], { dataDir });
  expect(run.code).toBe(0);
  id = /session ([0-9a-f-]{36})/.exec(run.stdout)![1]!;
}, 120_000);

afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('forkline replay', () => {
  it('replays an unchanged session identically, without contacting the provider or writing to the log', async () => {
    const before = await eventCount();
    const requests = llm.requests.length;
    const r = await forkline(['replay', id.slice(0, 8)], { dataDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(': identical');
    expect(r.stdout).toContain('requests: 4 logged, 4 sent, 4 identical');
    expect(r.stdout).toContain('tool calls: 3 logged, 3 made, identical');
    expect(llm.requests.length).toBe(requests);
    expect(await eventCount()).toBe(before);
  }, 60_000);

  it('runs the tools live in a scratch folder at the first checkpoint and compares the files', async () => {
    const r = await forkline(['replay', id, '--live-tools', '--json'], { dataDir });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as ReplayReport;
    expect(report).toMatchObject({ outcome: 'identical', liveTools: true });
    expect(report.files!.comparedTurns).toBe(1);
    // The edit changed the tree: the step that edited leaves a different tree than the one before it.
    const trees = report.files!.steps.map((s) => s.tree);
    expect(new Set(trees).size).toBe(2);
  }, 60_000);

  it('a one-character change of AGENTS.md diverges at the first request, at the system message, and names the file (exit 1)', async () => {
    writeFileSync(join(dataDir, 'AGENTS.md'), 'Answer briefly!\n');
    try {
      const r = await forkline(['replay', id], { dataDir });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('DIVERGED');
      expect(r.stdout).toContain('first divergence: step 1.1 (request #0) at messages[0].content');
      expect(r.stdout).toMatch(/because: project instructions changed: .*AGENTS\.md \(sha256 [0-9a-f]{12} → [0-9a-f]{12}\)/);
      expect(r.stdout).toContain('-Answer briefly.');
      expect(r.stdout).toContain('+Answer briefly!');
      const json = JSON.parse((await forkline(['replay', id, '--json'], { dataDir })).stdout) as ReplayReport;
      expect(json.requests.divergence).toMatchObject({ index: 0, path: 'messages[0].content', kind: 'body' });
    } finally {
      writeFileSync(join(dataDir, 'AGENTS.md'), 'Answer briefly.\n');
    }
  }, 60_000);

  it('exits 2 when the session cannot be replayed', async () => {
    const missing = await forkline(['replay', 'no-such-session'], { dataDir });
    expect(missing.code).toBe(2);
    const noCheckpoints = mkdtempSync(join(tmpdir(), 'forkline-replay-nocp-'));
    try {
      llm.enqueue(textResponse('hi'));
      const run = await forkline(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', 'hi'], { dataDir: noCheckpoints, env: { FORKLINE_CHECKPOINTS: 'off' } });
      const other = /session ([0-9a-f-]{36})/.exec(run.stdout)![1]!;
      const live = await forkline(['replay', other, '--live-tools'], { dataDir: noCheckpoints });
      expect(live.code).toBe(2);
      expect(live.stdout).toContain('NO_CHECKPOINT');
    } finally {
      rmSync(noCheckpoints, { recursive: true, force: true });
    }
  }, 60_000);
});
