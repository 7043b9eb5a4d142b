/**
 * The process log (`console.error` / `console.warn` of the engine: background write failures,
 * an end of turn that could not be saved, …) as the CLI prints it (docs/reliability.md "Signals and exit codes"): one line per
 * message, an Error as its message and code (`… [SQLITE_FULL]`), never its stack; a message that
 * repeats with only its numbers changed (a write retried every 200 ms on a full disk) is printed
 * once. `FORKLINE_DEBUG=1` leaves the console as it is (stacks included).
 *
 * Lines are held until the current turn of the event loop ends, so a command that learns in the
 * same turn that they are consequences of something it reports itself (its session was taken
 * over) can drop them with {@link ProcessLog.mute} and say it once.
 */
import { visibleInline } from '../../shared/visible-text.js';
import type { CliOutput } from './cli-output.js';

/** One argument of a console call as text: an Error as `message [code]`. */
function argText(value: unknown): string {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    const first = value.message.split('\n')[0] ?? '';
    return typeof code === 'string' && code !== '' && !first.includes(`[${code}]`) ? `${first} [${code}]` : first;
  }
  return typeof value === 'string' ? value : String(value);
}

/** The CLI's process log; see the module comment. */
export class ProcessLog {
  private pending: string[] = [];
  private scheduled = false;
  private muted = false;
  private lastShape: string | undefined;

  constructor(private readonly stderr: CliOutput) {}

  /** Replaces console.error and console.warn (not with FORKLINE_DEBUG=1). */
  install(env: { readonly [name: string]: string | undefined } = process.env): void {
    if (env['FORKLINE_DEBUG'] === '1') return;
    const log = (...args: unknown[]) => this.line(args.map(argText).join(' '));
    console.error = log;
    console.warn = log;
  }

  /** Queues one message (made one line, control characters escaped). */
  line(text: string): void {
    if (this.muted) return;
    const line = visibleInline(text.replace(/\s*\n\s*/g, ' ').trim());
    const shape = line.replace(/\d+/g, '#');
    if (shape === this.lastShape) return;
    this.lastShape = shape;
    this.pending.push(`${line}\n`);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Drops what is queued and everything later (the command reports the cause itself). */
  mute(): void {
    this.muted = true;
    this.pending = [];
  }

  /** Writes what is queued. */
  flush(): void {
    this.scheduled = false;
    const lines = this.pending;
    this.pending = [];
    for (const line of lines) this.stderr.write(line);
  }
}
