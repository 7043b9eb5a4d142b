/**
 * Whole output for the CLI (README "JSON output"). On Linux, Node writes to a pipe asynchronously: what
 * the pipe cannot take at once (64 KiB) waits in the stream's buffer, and `process.exit()` drops
 * it — `show --json | jq` got 65,536 bytes and a status of 0. Every command therefore writes
 * through a {@link CliOutput} and ends through {@link exitWhenWritten}, which waits until stdout
 * and stderr have handed everything to the OS before the process exits.
 *
 * - Backpressure: {@link CliOutput.writeAsync} waits for `drain` when the stream's buffer is full,
 *   so a producer of unbounded output (export) holds only what the reader has not taken yet.
 * - A reader that goes away (`| head`, a closed terminal: EPIPE, EIO, …) is not an error: later
 *   writes are dropped, the command ends as it would have, and nothing is printed about it.
 * - A write that fails for another reason (a full disk behind `> file`: ENOSPC, EFBIG, EDQUOT)
 *   is reported in one line with its code and ends the command with status 1.
 */

/** Error codes that mean the reader of a stream is gone (not a failure of the command). */
const READER_GONE: ReadonlySet<string> = new Set(['EPIPE', 'EIO', 'ECONNRESET', 'ENOTCONN', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** The part of a writable stream this module uses (process.stdout / process.stderr). */
export interface OutputStream {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  readonly writableLength: number;
  /** True once the stream was destroyed (a closed pipe can end it without an `error` event). */
  readonly destroyed?: boolean;
}

/** One output stream of the CLI with pipe semantics handled. */
export class CliOutput {
  private gone = false;
  private failure: NodeJS.ErrnoException | undefined;

  /** @param name `stdout` or `stderr`, for the message when a write fails. */
  constructor(
    private readonly stream: OutputStream,
    readonly name: string,
  ) {
    stream.on('error', (error: NodeJS.ErrnoException) => this.fail(error));
  }

  /** True once the reader went away (EPIPE, EIO, …): later writes are dropped. */
  get readerGone(): boolean {
    return this.gone;
  }

  /** The write error that was not the reader going away (ENOSPC, …), if one happened. */
  get writeFailure(): NodeJS.ErrnoException | undefined {
    return this.failure;
  }

  /** True while writing still makes sense (the reader is there and no write failed). */
  get open(): boolean {
    if (!this.gone && this.stream.destroyed === true) this.gone = true;
    return !this.gone && this.failure === undefined;
  }

  /** Queues `text` (never blocks; the stream buffers what the reader has not taken yet). */
  write(text: string): void {
    if (text === '' || !this.open) return;
    try {
      this.stream.write(text);
    } catch (error) {
      this.fail(error as NodeJS.ErrnoException);
    }
  }

  /** Writes `text`, then waits until the stream can take more (backpressure), the reader leaves or a write fails. */
  async writeAsync(text: string): Promise<void> {
    if (text === '' || !this.open) return;
    let ready: boolean;
    try {
      ready = this.stream.write(text);
    } catch (error) {
      this.fail(error as NodeJS.ErrnoException);
      return;
    }
    if (ready || !this.open) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      this.stream.once('drain', done);
      this.stream.once('close', done);
    });
  }

  /**
   * Resolves when everything written so far has been handed to the OS, the reader left, or a write
   * failed (never rejects).
   */
  flushed(): Promise<void> {
    if (!this.open || this.stream.writableLength === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      try {
        // An empty write's callback runs after every earlier write completed (writes are ordered).
        this.stream.write('', () => done());
      } catch (error) {
        this.fail(error as NodeJS.ErrnoException);
      }
    });
  }

  private readonly waiters = new Set<() => void>();

  private fail(error: NodeJS.ErrnoException): void {
    if (!this.open) return;
    if (READER_GONE.has(String(error.code ?? ''))) this.gone = true;
    else this.failure = error;
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** The CLI's stdout and stderr, created once per process by {@link cliOutputs}. */
export interface CliOutputs {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
}

let outputs: CliOutputs | undefined;

/** The process's stdout and stderr wrapped (the same pair on every call: one error listener each). */
export function cliOutputs(): CliOutputs {
  outputs ??= { stdout: new CliOutput(process.stdout, 'stdout'), stderr: new CliOutput(process.stderr, 'stderr') };
  return outputs;
}

/** One line for a failed output write, e.g. `forkline: could not write the output (stdout): no space left on device [ENOSPC]`. */
export function outputFailureLine(output: CliOutput): string | undefined {
  const error = output.writeFailure;
  if (!error) return undefined;
  const code = String(error.code ?? 'EIO');
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'the file is too large',
    EACCES: 'permission denied',
    EROFS: 'the file system is read-only',
  };
  return `forkline: could not write the output (${output.name}): ${words[code] ?? error.message.split('\n')[0]} [${code}]\n`;
}

/**
 * Ends the process with `code` once stdout and stderr have written everything (never
 * `process.exit()` with writes pending). A failed stdout write turns a 0 into 1 and is reported on
 * stderr; a reader that went away changes nothing. `beforeExit` runs last (the dead-terminal guard).
 */
export async function exitWhenWritten(code: number, options: { readonly beforeExit?: () => void } = {}): Promise<never> {
  const { stdout, stderr } = cliOutputs();
  process.exitCode = code;
  await stdout.flushed();
  const failure = outputFailureLine(stdout);
  let final = code;
  if (failure !== undefined) {
    stderr.write(failure);
    if (final === 0) final = 1;
  }
  await stderr.flushed();
  options.beforeExit?.();
  process.exit(final);
}
