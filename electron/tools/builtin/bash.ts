/**
 * `bash{command, timeout_ms?}`: runs `/bin/bash -c command` in the workspace through child-process
 * pipes (never node-pty, which can drop the tail of fast output: STACK.md §3), so the result is the
 * exact output.
 *
 * - stderr is the same pipe as stdout (`2>&1` applied before the command runs), so the two are
 *   merged byte-exactly in the order they were written.
 * - Non-interactive (docs/tools.md): the environment disables editors, pagers and credential prompts and
 *   carries no secrets (tool-environment.ts); the process has no controlling terminal (`detached`
 *   starts a new session), so nothing can open /dev/tty. On Linux stdin is a socket that is never
 *   written: a process that blocks reading it is found through procfs (stdin-wait-probe.ts) once
 *   the command has been quiet for a moment, and the command is stopped and reported as waiting for
 *   input (TOOL_WAITING_FOR_INPUT) instead of hanging until its timeout. Elsewhere stdin is
 *   /dev/null (reads see end-of-file).
 * - Every piece of output goes to `ctx.onOutput` as it arrives.
 * - The command runs in its own process group (`detached`); on timeout or abort the whole group
 *   gets SIGTERM, then SIGKILL after a grace period, so grandchildren die too. It is spawned through
 *   `ctx.spawn` (the process supervisor) when there is one, so neither it nor anything it started —
 *   `setsid` escapees included — outlives Forkline, and its pid is logged on the call.
 * - When bash exits but background processes keep the output pipe open, the call ends shortly
 *   after and those processes are terminated (the result says so).
 * - Memory is bounded: above `maxOutputBytes` only the head and tail are kept, with a notice.
 */
import { spawn as spawnUnsupervised } from 'node:child_process';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import type { ApprovalPreview } from '../../../shared/approval.js';
import { suggestCommandPrefix } from '../../../shared/approval.js';
import type { SpawnFunction } from '../process-supervisor.js';
import { defineTool, ToolError, type ToolDefinition } from '../tool.js';
import { toolEnvironment } from '../tool-environment.js';
import { HeadTailBuffer } from './head-tail-buffer.js';
import { canProbeStdin, findStdinReaders, stdinIdentity, type StdinReader } from './stdin-wait-probe.js';

/** Default command time limit (ms). */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest `timeout_ms` accepted (ms). */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Default output kept in memory (bytes); above it head + tail are kept. */
export const BASH_DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Tunables of the bash tool (tests shorten them; the defaults suit the app). */
export interface BashToolOptions {
  /** Timeout when the call gives no `timeout_ms` (ms). Default {@link BASH_DEFAULT_TIMEOUT_MS}. */
  readonly defaultTimeoutMs?: number;
  /** Output bytes kept (head + tail beyond it). Default {@link BASH_DEFAULT_MAX_OUTPUT_BYTES}. */
  readonly maxOutputBytes?: number;
  /** Wait between SIGTERM and SIGKILL of the process group (ms). Default 2000. */
  readonly killGraceMs?: number;
  /**
   * After bash exits, how long the output pipe may stay open and quiet before the background
   * processes holding it are terminated (ms). Default 250; never more than 2000 ms in total.
   */
  readonly drainIdleMs?: number;
  /** Shell binary. Default `/bin/bash`. */
  readonly shell?: string;
  /** The environment the tool environment is built from (default `process.env`); secrets are removed from it. */
  readonly environment?: () => { readonly [name: string]: string | undefined };
  /** Secret values (e.g. API keys from Settings) that must not reach the command whatever they are called. */
  readonly secrets?: () => readonly string[];
  /**
   * A command that has been quiet this long (ms) while a process blocks reading stdin is stopped as
   * waiting for input. Default 1500.
   */
  readonly inputWaitMs?: number;
}

const DRAIN_MAX_MS = 2000;
/** How often a quiet command is probed for a process waiting on stdin (ms). */
const INPUT_PROBE_INTERVAL_MS = 500;
/** An event loop watching stdin counts as waiting only after this many times `inputWaitMs` of quiet. */
const POLL_QUIET_FACTOR = 4;
/** After SIGKILL, wait at most this long for the pipes to close before giving up on them (ms). */
const AFTER_KILL_WAIT_MS = 1000;

const parameters = z
  .object({
    command: z.string().min(1).describe('The shell command to run with /bin/bash -c, in the workspace root.'),
    timeout_ms: z.number().int().min(1).max(BASH_MAX_TIMEOUT_MS).optional().describe(`Time limit in milliseconds. Default ${BASH_DEFAULT_TIMEOUT_MS}, maximum ${BASH_MAX_TIMEOUT_MS}.`),
  })
  .strict();

/**
 * Result content: the merged output, then a final line `[exit code N]` (or `[killed by signal S]`);
 * `(no output)` stands in for empty output. `isError` is true when the exit code is not 0. Above
 * the output cap the middle is replaced by `[... N bytes of output omitted (T bytes in total) ...]`.
 *
 * meta: `{exitCode, signal?, durationMs, outputBytes, omittedBytes?, backgroundKilled?}`
 * (exitCode null when killed by a signal; outputBytes = all bytes received).
 *
 * Errors: `TOOL_TIMEOUT` (message includes the output so far), `TOOL_WAITING_FOR_INPUT` (a process
 * blocked reading stdin while the command was quiet; names it; includes the output so far),
 * `ABORTED` (ctx.signal), `TOOL_ERROR` (the shell could not be started). A non-zero exit is not an
 * error, just `isError: true`.
 *
 * preview (for approval): `{kind: 'command', command, cwd, suggestedPrefix}`.
 */
export function createBashTool(options: BashToolOptions = {}): ToolDefinition<typeof parameters> {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? BASH_DEFAULT_MAX_OUTPUT_BYTES;
  const killGraceMs = options.killGraceMs ?? 2000;
  const drainIdleMs = options.drainIdleMs ?? 250;
  const shell = options.shell ?? '/bin/bash';
  const inputWaitMs = options.inputWaitMs ?? 1500;
  const environment = options.environment ?? (() => process.env);
  return defineTool({
    name: 'bash',
    description:
      'Run a shell command with /bin/bash -c in the workspace root and return its combined stdout and stderr followed by the exit code. ' +
      'Non-interactive: there is no terminal and no input; a command that waits for input is stopped and reported, editors and pagers cannot open (use git commit -m, --no-edit, --yes flags, or pipe input in). ' +
      `Default time limit ${defaultTimeoutMs / 1000} s (timeout_ms, up to ${BASH_MAX_TIMEOUT_MS / 1000} s). ` +
      'Every call starts a new shell (cd and variables do not carry over). Background processes that keep writing to the output are stopped when the command ends; ' +
      'to leave a server running, redirect its output: nohup cmd > log.txt 2>&1 &.',
    parameters,
    risk: 'exec',
    presentation: 'terminal',
    // Above the largest timeout_ms, so the command's own deadline always fires first.
    timeoutMs: BASH_MAX_TIMEOUT_MS + 30_000,
    preview(args, ctx): Promise<ApprovalPreview> {
      return Promise.resolve({ kind: 'command', command: args.command, cwd: ctx.cwd, suggestedPrefix: suggestCommandPrefix(args.command) });
    },
    execute(args, ctx) {
      const env = toolEnvironment(environment(), options.secrets?.() ?? []).env;
      return runCommand(args.command, args.timeout_ms ?? defaultTimeoutMs, ctx.cwd, ctx.signal, ctx.onOutput, {
        maxOutputBytes,
        killGraceMs,
        drainIdleMs,
        shell,
        spawn: ctx.spawn ?? spawnUnsupervised,
        env,
        inputWaitMs,
      });
    },
  });
}

interface RunOptions {
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly drainIdleMs: number;
  readonly shell: string;
  /** The supervised spawn hook (process-supervisor.ts). */
  readonly spawn: SpawnFunction;
  readonly env: Record<string, string>;
  readonly inputWaitMs: number;
}

function runCommand(
  command: string,
  timeoutMs: number,
  cwd: string,
  signal: AbortSignal,
  onOutput: ((text: string) => void) | undefined,
  options: RunOptions,
): Promise<{ content: string; isError: boolean; meta: { [key: string]: number | string | boolean | null } }> {
  if (signal.aborted) return Promise.reject(new ToolError('ABORTED', 'The command was cancelled before it started; nothing ran.'));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const output = new HeadTailBuffer(options.maxOutputBytes);
    const decoder = new StringDecoder('utf8');
    // The outer shell replaces itself with `shell -c command` after pointing stderr at stdout.
    const probeStdin = canProbeStdin();
    const child = options.spawn(options.shell, ['-c', 'exec "$0" -c "$1" 2>&1', options.shell, command], {
      cwd,
      detached: true,
      env: options.env,
      // A never-written socket on Linux (so a blocked reader can be found), else /dev/null.
      stdio: [probeStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const { stdout, stderr } = child as typeof child & { stdout: Readable; stderr: Readable };
    child.stdin?.on('error', () => undefined);
    let stopReason: 'timeout' | 'abort' | 'input' | undefined;
    let waitingReaders: StdinReader[] = [];
    let lastOutputAt = performance.now();
    let backgroundKilled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;
    let settled = false;
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, fn: () => void) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
      return t;
    };
    let drainIdle: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    /** SIGTERM now, SIGKILL after the grace period (also if we settle first). */
    const terminateGroup = () => {
      killGroup('SIGTERM');
      const t = setTimeout(() => killGroup('SIGKILL'), options.killGraceMs);
      t.unref();
    };
    const emit = (text: string) => {
      if (text === '' || onOutput === undefined) return;
      try {
        onOutput(text);
      } catch {
        // A failing UI listener must not break the command.
      }
    };
    const onData = (chunk: Buffer) => {
      lastOutputAt = performance.now();
      output.push(chunk);
      emit(decoder.write(chunk));
      if (drainIdle !== undefined) {
        clearTimeout(drainIdle);
        timers.delete(drainIdle);
        drainIdle = later(options.drainIdleMs, stopDraining);
      }
    };
    stdout.on('data', onData);
    stderr.on('data', onData);
    // Read errors on our end of the pipes end the stream; 'close' still follows.
    stdout.on('error', () => undefined);
    stderr.on('error', () => undefined);

    const onAbort = () => stop('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    later(timeoutMs, () => stop('timeout'));

    // Waiting for input: probe a quiet command for a process blocked reading stdin (twice in a row).
    // A blocked read is certain after `inputWaitMs` of quiet; an event loop that merely watches
    // stdin (a prompt library) needs a longer quiet spell, since it might be doing other work.
    const stdin = probeStdin && child.pid !== undefined ? stdinIdentity(child.pid) : undefined;
    let suspected = false;
    const probe = () => {
      if (settled || stopReason !== undefined || exited || child.pid === undefined || stdin === undefined) return;
      const quietMs = performance.now() - lastOutputAt;
      if (quietMs >= options.inputWaitMs) {
        const readers = findStdinReaders(child.pid, stdin).filter((r) => r.how === 'read' || quietMs >= options.inputWaitMs * POLL_QUIET_FACTOR);
        if (readers.length > 0 && suspected) {
          waitingReaders = readers;
          stop('input');
          return;
        }
        suspected = readers.length > 0;
      } else suspected = false;
      later(INPUT_PROBE_INTERVAL_MS, probe);
    };
    if (stdin !== undefined) later(INPUT_PROBE_INTERVAL_MS, probe);

    function stop(reason: 'timeout' | 'abort' | 'input') {
      if (settled || stopReason !== undefined) return;
      if (exited) {
        // bash already finished; only background processes keep the pipe open: end normally.
        stopDraining();
        return;
      }
      stopReason = reason;
      terminateGroup();
      // If something survives even SIGKILL and keeps the pipes open, stop waiting for it.
      later(options.killGraceMs + AFTER_KILL_WAIT_MS, () => {
        stdout.destroy();
        stderr.destroy();
        finish();
      });
    }

    function stopDraining() {
      if (settled) return;
      backgroundKilled = true;
      terminateGroup();
      stdout.destroy();
      stderr.destroy();
      finish();
    }

    function finish() {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      signal.removeEventListener('abort', onAbort);
      stdout.off('data', onData);
      stderr.off('data', onData);
      child.stdin?.destroy();
      emit(decoder.end());
      const durationMs = Math.round(performance.now() - started);
      const collected = output.text();
      if (stopReason === 'timeout') {
        reject(
          new ToolError(
            'TOOL_TIMEOUT',
            `The command timed out after ${timeoutMs} ms and was killed (with all processes it started). ` +
              `If it needs longer, pass a larger timeout_ms (max ${BASH_MAX_TIMEOUT_MS}); if it waits for input, make it non-interactive.\n` +
              `Output so far:\n${collected.text === '' ? '(no output)' : collected.text}`,
          ),
        );
        return;
      }
      if (stopReason === 'input') {
        const who = waitingReaders.map((r) => `${r.name} (pid ${r.pid})`).join(', ');
        const doing = waitingReaders.some((r) => r.how === 'read') ? 'was blocked reading standard input' : 'sat idle waiting on standard input';
        reject(
          new ToolError(
            'TOOL_WAITING_FOR_INPUT',
            `The command was stopped after ${durationMs} ms: it was waiting for input — ${who} ${doing}, and commands get no input here (there is no terminal). ` +
              'Make it non-interactive: pass the answer as an argument or flag (e.g. -y, --yes, --non-interactive, -m "message"), read from a file, or pipe the input in (printf \'y\\n\' | command; command < /dev/null for none).\n' +
              `Output so far:\n${collected.text === '' ? '(no output)' : collected.text}`,
          ),
        );
        return;
      }
      if (stopReason === 'abort') {
        reject(
          new ToolError(
            'ABORTED',
            `The command was cancelled after ${durationMs} ms and was killed (with all processes it started).\nOutput so far:\n${collected.text === '' ? '(no output)' : collected.text}`,
          ),
        );
        return;
      }
      let text = collected.text === '' ? '(no output)\n' : collected.text.endsWith('\n') ? collected.text : `${collected.text}\n`;
      if (backgroundKilled) text += '[background processes still attached to the output were terminated when the command ended]\n';
      text += exitCode !== null ? `[exit code ${exitCode}]` : `[killed by signal ${exitSignal ?? 'unknown'}]`;
      resolve({
        content: text,
        isError: exitCode !== 0,
        meta: {
          exitCode,
          ...(exitSignal !== null ? { signal: exitSignal } : {}),
          durationMs,
          outputBytes: collected.totalBytes,
          ...(collected.omittedBytes > 0 ? { omittedBytes: collected.omittedBytes } : {}),
          ...(backgroundKilled ? { backgroundKilled: true } : {}),
        },
      });
    }

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      child.stdin?.destroy();
      for (const t of timers) clearTimeout(t);
      signal.removeEventListener('abort', onAbort);
      reject(new ToolError('TOOL_ERROR', `Could not start ${options.shell} in '${cwd}': ${error.message}`, { cause: error }));
    });
    child.on('exit', (code, sig) => {
      exited = true;
      exitCode = code;
      exitSignal = sig;
      if (stopReason !== undefined || settled) return;
      // Normally 'close' follows at once; if background processes hold the pipe, stop waiting.
      drainIdle = later(options.drainIdleMs, stopDraining);
      later(DRAIN_MAX_MS, stopDraining);
    });
    child.on('close', () => finish());
  });
}
