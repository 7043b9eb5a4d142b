/**
 * Closing the real terminal while `forkline run` works (issue 20 item 8). The CLI runs as the
 * session leader of a real pseudo terminal (node-pty), as under a shell in a terminal window; the
 * terminal is closed the way a terminal emulator closes it (`IPty.destroy()`: the master side is
 * closed, so the kernel hangs the terminal up, then SIGHUP is sent — the process gets the hang-up
 * more than once, and every later read or terminal call on its stdio fails with EIO).
 *
 * Before: waiting for an approval, node aborted on signal 6 (its exit restores the terminal modes,
 * and `tcsetattr` on the dead terminal failed an assertion), or, with stdin ended, ran dry and
 * exited 0 leaving the turn open; during a bash call or a stream it died on a signal too. Now:
 * exit 129, and the process itself saved the closers (`turn/end{aborted: SIGHUP}`), so a later
 * load has nothing to repair.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../shared/events.js';
import { SessionRepository } from '../../../electron/store/session-repository.js';
import { SqliteSessionStore } from '../../../electron/store/sqlite-session-store.js';
import { runCliInTerminal } from '../../support/cli-process.js';
import { startScriptedLlm, textResponse, toolCallResponse, type ScriptedLlm } from '../../support/scripted-llm/index.js';

// One scripted server per test: each plays its replies from the start of a conversation.
let llm: ScriptedLlm;
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'forkline-terminal-close-'));
});
beforeEach(async () => {
  llm = await startScriptedLlm();
});
afterEach(async () => {
  await llm.close();
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The stored log of the only session in `dataDir`, and how many closers a fresh load adds. */
function storedLog(dataDir: string): { events: readonly SessionEvent[]; repaired: number } {
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    const repository = new SessionRepository(store, { newId: () => 'unused' });
    const [record] = repository.list();
    const loaded = repository.load(record!.header.id);
    return { events: loaded.events, repaired: loaded.repaired };
  } finally {
    store.close();
  }
}

async function closeTerminalWhile(name: string, extraArgs: readonly string[], ready: (screen: string) => boolean, settled?: () => boolean): Promise<readonly SessionEvent[]> {
  const dataDir = join(root, `data-${name}`);
  const work = join(root, `work-${name}`);
  mkdirSync(work, { recursive: true });
  const run = runCliInTerminal(['run', '--cwd', work, '--base-url', llm.baseUrl, '--model', 'scripted-model', '--data-dir', dataDir, ...extraArgs, 'go']);
  await run.until(ready, 60_000, name);
  // Then, where given, a state the screen does not show (polled).
  for (const started = Date.now(); settled && !settled();) {
    if (Date.now() - started > 60_000) throw new Error(`${name}: not settled in 60 s; the terminal showed:\n${run.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // UnixTerminal.destroy (not in node-pty's IPty type): closes the master side, then sends SIGHUP.
  (run.pty as typeof run.pty & { destroy(): void }).destroy();
  const exit = await run.exited;
  expect(exit, `${name}: the terminal showed:\n${run.screen()}`).toEqual({ exitCode: 129, signal: 0 });
  const { events, repaired } = storedLog(dataDir);
  // The process saved its own closers: nothing was left for crash recovery.
  expect(repaired).toBe(0);
  const ends = events.filter((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end');
  expect(ends).toHaveLength(1);
  expect(ends[0]!.data.reason).toEqual({ kind: 'aborted', cause: { kind: 'signal', signal: 'SIGHUP' } });
  expect(events.filter((e) => e.type === 'step/end')).toHaveLength(events.filter((e) => e.type === 'step/start').length);
  return events;
}

describe('closing the terminal is SIGHUP: closers saved, exit 129, no crash', () => {
  it('while run waits for an approval', async () => {
    llm.enqueue(toolCallResponse([{ id: 'b1', name: 'bash', arguments: JSON.stringify({ command: 'echo should-not-run' }) }]), textResponse('unused'));
    const events = await closeTerminalWhile('approval', [], (s) => s.includes('Allow? [y]es once'));
    expect(events.find((e) => e.type === 'approval/decided')?.data).toMatchObject({ outcome: 'cancelled' });
    expect(events.find((e) => e.type === 'tool/result')?.data).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } });
  }, 90_000);

  it('during a bash call', async () => {
    // Ready once the call really runs (the file it writes exists), not when the CLI shows its
    // arguments, which is before dispatch: closing then is a cancel before dispatch, logged so.
    llm.enqueue(toolCallResponse([{ id: 'b2', name: 'bash', arguments: JSON.stringify({ command: 'touch call-started; sleep 30' }) }]), textResponse('unused'));
    const events = await closeTerminalWhile(
      'bash',
      ['--approval', 'allow'],
      (screen) => screen.includes('call-started'),
      () => existsSync(join(root, 'work-bash', 'call-started')),
    );
    expect(events.find((e) => e.type === 'tool/result')?.data).toMatchObject({ error: { code: 'ABORTED' } });
  }, 90_000);

  it('while a model response streams', async () => {
    llm.enqueue(textResponse('streaming-now and then it stalls forever', { split: 13, cut: { after: 3, then: 'stall' } }));
    const events = await closeTerminalWhile('stream', [], (s) => s.includes('streaming-now'));
    expect(events.find((e) => e.type === 'assistant/message')?.data).toMatchObject({ interrupted: true });
  }, 90_000);
});
