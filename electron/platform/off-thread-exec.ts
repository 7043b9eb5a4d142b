/**
 * `execFile` whose launch happens on a worker thread, not on the caller's.
 *
 * Why: starting a process blocks the thread that starts it until the child has called `exec`
 * (libuv's `uv_spawn` forks, then waits on a close-on-exec pipe; Node 20 ships libuv 1.46, which
 * forks on Linux). That is 2–4 ms on a quiet machine and 15–20 ms on a loaded one, measured here
 * for `git --version`, during which the main process (the host: every session's agent loop, the
 * IPC to the window) stands still. A workspace checkpoint is five or six git commands, and a
 * fan-out of four branches runs four of them at once; on a worker thread those waits overlap
 * with the agents' work instead of stopping it.
 *
 * Same contract as `child_process.execFile` with a callback and `encoding: 'utf8'`: resolves with
 * the child's stdout and stderr when it exits with status 0; otherwise rejects with an
 * {@link OffThreadExecError} that carries what execFile's error carries (`code`: the exit status
 * or an errno string like `ENOENT`; `signal`; `killed` after a `timeout`; the output so far).
 *
 * One worker per process, started at the first call; it keeps the process alive only while a
 * command is running. Where a worker cannot start, commands run with `execFile` on the calling
 * thread (same results, the old cost).
 */
import { execFile } from 'node:child_process';
import type * as ChildProcess from 'node:child_process';
import type * as WorkerThreads from 'node:worker_threads';
import { Worker } from 'node:worker_threads';

/** The options this launcher passes on to `execFile` (all optional). */
export interface OffThreadExecOptions {
  readonly cwd?: string;
  /** The child's whole environment (as execFile's `env`: not merged with `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Kill the child (SIGTERM) after this many ms; 0 or absent: no limit. */
  readonly timeout?: number;
  /** Most bytes of stdout or stderr kept; more kills the child (execFile's `maxBuffer`, default 1 MiB). */
  readonly maxBuffer?: number;
}

/** What the child printed. */
export interface OffThreadExecResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that could not start, failed, was killed or printed more than `maxBuffer`. */
export class OffThreadExecError extends Error {
  override readonly name = 'OffThreadExecError';
  constructor(
    message: string,
    /** Exit status (number) or errno code (`ENOENT`, `ERR_CHILD_PROCESS_STDIO_MAXBUFFER`…). */
    readonly code: number | string | undefined,
    readonly signal: string | undefined,
    /** True when the launcher killed it (a `timeout`). */
    readonly killed: boolean,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

interface ExecRequest {
  readonly id: number;
  readonly file: string;
  readonly args: readonly string[];
  readonly options: OffThreadExecOptions;
}

interface ExecReply {
  readonly id: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly error?: { readonly message: string; readonly code?: number | string; readonly signal?: string; readonly killed: boolean };
}

/**
 * The worker's whole program, evaluated from its source text (so it runs the same from TypeScript,
 * the CLI bundle and the Electron main bundle): `load` is the worker's `require`.
 */
function launcherThread(load: NodeJS.Require): void {
  const { parentPort } = load('node:worker_threads') as typeof WorkerThreads;
  const { execFile: run } = load('node:child_process') as typeof ChildProcess;
  parentPort!.on('message', (request: ExecRequest) => {
    const { cwd, env, timeout, maxBuffer } = request.options;
    run(
      request.file,
      request.args as string[],
      {
        encoding: 'utf8',
        ...(cwd !== undefined ? { cwd } : {}),
        ...(env !== undefined ? { env } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
        ...(maxBuffer !== undefined ? { maxBuffer } : {}),
      },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string | null; signal?: string | null; killed?: boolean }) | null;
        const reply: ExecReply = {
          id: request.id,
          stdout,
          stderr,
          ...(e
            ? {
                error: {
                  message: e.message,
                  ...(e.code !== null && e.code !== undefined ? { code: e.code } : {}),
                  ...(e.signal !== null && e.signal !== undefined ? { signal: e.signal } : {}),
                  killed: e.killed === true,
                },
              }
            : {}),
        };
        parentPort!.postMessage(reply);
      },
    );
  });
}

class Launcher {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: OffThreadExecResult) => void; reject: (e: Error) => void }>();

  exec(file: string, args: readonly string[], options: OffThreadExecOptions): Promise<OffThreadExecResult> {
    const worker = this.start();
    if (!worker) return execHere(file, args, options);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref(); // a running command keeps the process alive
      worker.postMessage({ id, file, args, options } satisfies ExecRequest);
    });
  }

  private start(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(`var __name = (target) => target;\n(${launcherThread.toString()})(require);`, { eval: true });
      worker.unref();
      worker.on('message', (reply: ExecReply) => this.settle(reply));
      // The worker died (it should not): fail what it held, run later commands here.
      worker.on('error', (error) => this.abandon(error));
      worker.on('exit', () => this.abandon(new Error('the process launcher thread stopped')));
      this.worker = worker;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  private settle(reply: ExecReply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (reply.error) {
      const { message, code, signal, killed } = reply.error;
      waiter.reject(new OffThreadExecError(message, code, signal, killed, reply.stdout, reply.stderr));
    } else waiter.resolve({ stdout: reply.stdout, stderr: reply.stderr });
  }

  private abandon(error: Error): void {
    if (!this.worker) return;
    this.worker = undefined;
    this.failed = true;
    for (const waiter of this.pending.values()) waiter.reject(new OffThreadExecError(error.message, undefined, undefined, false, '', ''));
    this.pending.clear();
  }
}

/** execFile on this thread: the fallback, with the same results. */
function execHere(file: string, args: readonly string[], options: OffThreadExecOptions): Promise<OffThreadExecResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args as string[], { encoding: 'utf8', ...options, env: options.env as NodeJS.ProcessEnv | undefined }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr });
      const e = error as Error & { code?: number | string | null; signal?: string | null; killed?: boolean };
      reject(new OffThreadExecError(e.message, e.code ?? undefined, e.signal ?? undefined, e.killed === true, stdout, stderr));
    });
  });
}

const launcher = new Launcher();

/**
 * Runs `file` with `args` (no shell) and buffers its output, launching it from a worker thread.
 * @throws OffThreadExecError (as a rejection) for a non-zero exit, a signal, a timeout, a missing
 *   program or output over `maxBuffer`.
 */
export function execFileOffThread(file: string, args: readonly string[], options: OffThreadExecOptions = {}): Promise<OffThreadExecResult> {
  return launcher.exec(file, args, options);
}
