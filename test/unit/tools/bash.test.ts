import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASH_DEFAULT_MAX_OUTPUT_BYTES, createBashTool } from '../../../electron/tools/builtin/bash.js';
import { expectToolError, makeCtx, put, tempDir } from './helpers.js';

const bash = createBashTool();
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
type Meta = { exitCode: number | null; signal?: string; durationMs: number; outputBytes: number; omittedBytes?: number; backgroundKilled?: boolean };

/** True while `pid` exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits up to `ms` for every pid to be gone; returns the survivors. */
async function survivors(pids: number[], ms = 3000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    alive = alive.filter(isAlive);
  }
  return alive;
}

function pidsIn(text: string): number[] {
  return [...text.matchAll(/^PID (\d+)$/gm)].map((m) => Number(m[1]));
}

/** The output part of a result: everything before the final `[exit code N]` line. */
function outputOf(content: string): string {
  return content.slice(0, content.lastIndexOf('\n[exit code ') + 1);
}

describe('bash', () => {
  let ws: ReturnType<typeof tempDir>;
  const stray: number[] = [];
  beforeEach(() => {
    ws = tempDir();
  });
  afterEach(() => {
    for (const pid of stray.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    ws.cleanup();
  });

  it('runs in the workspace and ends with the exit code line', async () => {
    const out = await bash.execute({ command: 'pwd' }, makeCtx(ws.dir));
    expect(out.content).toBe(`${ws.dir}\n[exit code 0]`);
    expect(out.isError).toBe(false);
    const meta = out.meta as Meta;
    expect(meta.exitCode).toBe(0);
    expect(meta.outputBytes).toBe(ws.dir.length + 1);
    expect(meta.durationMs).toBeGreaterThanOrEqual(0);
    expect(meta.signal).toBeUndefined();
  });

  it('reports a non-zero exit as a normal result with isError', async () => {
    const out = await bash.execute({ command: 'echo failing; exit 3' }, makeCtx(ws.dir));
    expect(out.content).toBe('failing\n[exit code 3]');
    expect(out.isError).toBe(true);
    expect((out.meta as Meta).exitCode).toBe(3);
    const empty = await bash.execute({ command: 'true' }, makeCtx(ws.dir));
    expect(empty.content).toBe('(no output)\n[exit code 0]');
    const noNewline = await bash.execute({ command: 'printf abc' }, makeCtx(ws.dir));
    expect(noNewline.content).toBe('abc\n[exit code 0]');
  });

  it('reports death by signal', async () => {
    const out = await bash.execute({ command: 'echo before; kill -9 $$' }, makeCtx(ws.dir));
    expect(out.content).toBe('before\n[killed by signal SIGKILL]');
    expect(out.isError).toBe(true);
    expect(out.meta).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('merges stdout and stderr in the order they were written', async () => {
    const out = await bash.execute({ command: 'echo out1; echo err1 >&2; echo out2; echo err2 >&2; printf "%s\\n" out3' }, makeCtx(ws.dir));
    expect(out.content).toBe('out1\nerr1\nout2\nerr2\nout3\n[exit code 0]');
  });

  it('streams output to ctx.onOutput as it arrives', async () => {
    const pieces: { text: string; at: number }[] = [];
    const start = Date.now();
    const ctx = makeCtx(ws.dir, { onOutput: (text) => pieces.push({ text, at: Date.now() - start }) });
    const out = await bash.execute({ command: 'echo one; sleep 0.3; echo two' }, ctx);
    expect(pieces.map((p) => p.text).join('')).toBe('one\ntwo\n');
    expect(outputOf(out.content)).toBe('one\ntwo\n');
    // "one" arrived before the sleep ended, i.e. live, not at the end.
    expect(pieces[0]!.text).toBe('one\n');
    expect(pieces[0]!.at).toBeLessThan((out.meta as Meta).durationMs - 150);
  });

  it('gives no input: stdin is never written (a reader is reported as waiting, see bash-noninteractive.test.ts); < /dev/null reads nothing', async () => {
    const out = await bash.execute({ command: 'cat < /dev/null; echo "read $(wc -c < /dev/null) bytes"' }, makeCtx(ws.dir));
    expect(out.content).toBe('read 0 bytes\n[exit code 0]');
  });

  it('returns a 2 MB output exactly (byte count and checksum)', async () => {
    const big = tempDir();
    try {
      const text =
        randomBytes(1_500_000)
          .toString('base64')
          .replace(/(.{76})/g, '$1\n') + '\nEND\n';
      expect(text.length).toBeGreaterThan(2_000_000);
      put(big.dir, 'big.txt', text);
      const tool = createBashTool({ maxOutputBytes: 4 * 1024 * 1024 });
      const streamed: string[] = [];
      const out = await tool.execute({ command: 'cat big.txt; seq 1 100000' }, makeCtx(big.dir, { onOutput: (t) => streamed.push(t) }));
      let expected = text;
      for (let i = 1; i <= 100_000; i++) expected += `${i}\n`;
      const output = outputOf(out.content);
      expect(output.length).toBe(expected.length);
      expect(sha(output)).toBe(sha(expected));
      expect(output.slice(-20)).toBe(expected.slice(-20));
      expect((out.meta as Meta).outputBytes).toBe(Buffer.byteLength(expected));
      expect(sha(streamed.join(''))).toBe(sha(expected));
    } finally {
      big.cleanup();
    }
  });

  it('keeps head and tail of an output over the cap and says how many bytes were omitted', async () => {
    const total = 3_000_000;
    const out = await bash.execute({ command: `printf 'HEAD'; head -c ${total - 8} /dev/zero | tr '\\0' x; printf 'TAIL'` }, makeCtx(ws.dir));
    const meta = out.meta as Meta;
    expect(meta.outputBytes).toBe(total);
    expect(meta.omittedBytes).toBe(total - BASH_DEFAULT_MAX_OUTPUT_BYTES);
    expect(out.content).toContain(`[... ${total - BASH_DEFAULT_MAX_OUTPUT_BYTES} bytes of output omitted (${total} bytes in total)`);
    expect(out.content.startsWith('HEADxxx')).toBe(true);
    expect(out.content.endsWith('xxxTAIL\n[exit code 0]')).toBe(true);
    expect(out.content.length).toBeLessThan(BASH_DEFAULT_MAX_OUTPUT_BYTES + 300);
  });

  it('kills the whole process group on timeout and reports TOOL_TIMEOUT with the output so far', async () => {
    const started = Date.now();
    const error = await expectToolError(
      bash.execute({ command: 'echo started; sleep 30 & echo "PID $!"; (sleep 30 & echo "PID $!"; wait) & sleep 30; wait', timeout_ms: 400 }, makeCtx(ws.dir)),
      'TOOL_TIMEOUT',
      /timed out after 400 ms/,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.message).toContain('Output so far:\nstarted\n');
    const pids = pidsIn(error.message);
    expect(pids).toHaveLength(2);
    stray.push(...pids);
    expect(await survivors(pids)).toEqual([]);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const tool = createBashTool({ killGraceMs: 200 });
    const started = Date.now();
    const error = await expectToolError(tool.execute({ command: 'trap \'\' TERM; sleep 30 & echo "PID $!"; wait', timeout_ms: 300 }, makeCtx(ws.dir)), 'TOOL_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2500);
    const pids = pidsIn(error.message);
    expect(pids).toHaveLength(1);
    stray.push(...pids);
    expect(await survivors(pids)).toEqual([]);
  });

  it('kills the process group and reports ABORTED when ctx.signal aborts', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const ctx = makeCtx(ws.dir, {
      signal: controller.signal,
      onOutput: (t) => {
        seen.push(t);
        if (seen.join('').includes('PID ')) setTimeout(() => controller.abort(), 50);
      },
    });
    const error = await expectToolError(bash.execute({ command: 'sleep 30 & echo "PID $!"; wait' }, ctx), 'ABORTED', /cancelled/);
    const pids = pidsIn(error.message);
    expect(pids).toHaveLength(1);
    stray.push(...pids);
    expect(await survivors(pids)).toEqual([]);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expectToolError(bash.execute({ command: 'touch ran.txt' }, makeCtx(ws.dir, { signal: controller.signal })), 'ABORTED');
    expect(existsSync(path.join(ws.dir, 'ran.txt'))).toBe(false);
  });

  it('ends soon after bash exits when a background process holds the output, and terminates it', async () => {
    const started = Date.now();
    const out = await bash.execute({ command: 'sleep 30 & echo "PID $!"' }, makeCtx(ws.dir));
    expect(Date.now() - started).toBeLessThan(2500);
    expect(out.content).toContain('[background processes still attached to the output were terminated when the command ended]\n[exit code 0]');
    expect(out.meta).toMatchObject({ exitCode: 0, backgroundKilled: true });
    const pids = pidsIn(out.content);
    stray.push(...pids);
    expect(await survivors(pids)).toEqual([]);
  });

  it('leaves a background process with redirected output running', async () => {
    const out = await bash.execute({ command: 'nohup sleep 30 > /dev/null 2>&1 & echo "PID $!"' }, makeCtx(ws.dir));
    const pids = pidsIn(out.content);
    stray.push(...pids);
    expect(out.meta).not.toHaveProperty('backgroundKilled');
    expect(pids.filter(isAlive)).toEqual(pids);
  });

  it('reports a shell that cannot start as TOOL_ERROR', async () => {
    await expectToolError(bash.execute({ command: 'true' }, makeCtx(path.join(ws.dir, 'missing-dir'))), 'TOOL_ERROR', /Could not start/);
    const noShell = createBashTool({ shell: path.join(ws.dir, 'no-such-shell') });
    await expectToolError(noShell.execute({ command: 'true' }, makeCtx(ws.dir)), 'TOOL_ERROR', /no-such-shell/);
  });

  it('validates timeout_ms and is an exec tool that is not concurrency-safe', () => {
    expect(bash.parameters.safeParse({ command: 'ls', timeout_ms: 600_001 }).success).toBe(false);
    expect(bash.parameters.safeParse({ command: 'ls', timeout_ms: 0 }).success).toBe(false);
    expect(bash.parameters.safeParse({ command: 'ls', timeout_ms: 600_000 }).success).toBe(true);
    expect(bash.parameters.safeParse({ command: 'ls', cwd: '/' }).success).toBe(false);
    expect(bash.risk).toBe('exec');
    expect(bash.presentation).toBe('terminal');
    expect(bash.isConcurrencySafe?.({ command: 'ls' }) === true).toBe(false);
    expect(bash.timeoutMs).toBeGreaterThan(600_000);
  });
});
