/**
 * The approval answerer of `forkline run` / `resume`: asks on the terminal, showing the change (the
 * diff, or the command and its folder); with no terminal, answers `unavailable` and says how to
 * allow.
 *
 * The terminal can end while the question waits (docs/reliability.md "Signals and exit codes"): closing the terminal window
 * ends stdin (EOF or EIO), and Node, with nothing else to wait for, used to let the process run dry
 * and exit 0 with the turn left open (or abort on the dead terminal). An input that ends is
 * therefore an answer: a terminal that hung up (stdin is no longer a terminal) is reported to
 * `onHangup` — handled as SIGHUP: the turn is cancelled, its closers saved, exit 129 — and the call
 * is `cancelled`; an input that merely ended (Ctrl+D on a live terminal) answers no.
 */
import { isatty } from 'node:tty';
import { createInterface } from 'node:readline';
import type { ApprovalOutcome } from '../../shared/events.js';
import { visibleInline } from '../../shared/visible-text.js';
import type { ApprovalAnswerer, ApprovalDecision } from '../agent/approval-gate.js';
import { approvalPromptText, parseApprovalAnswer } from './approval-prompt.js';
import type { CliOutput } from './cli-output.js';
import type { TimelineText } from './timeline-text.js';

export interface TerminalAnswererOptions {
  readonly printer: TimelineText;
  readonly color: boolean;
  readonly stdout: CliOutput;
  /** The terminal hung up while a question waited. */
  onHangup(): void;
  /** Defaults: process.stdin and node:tty's isatty. */
  readonly input?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly isTerminal?: (fd: number) => boolean;
}

/** The answerer; see the module comment. */
export function terminalAnswerer(options: TerminalAnswererOptions): ApprovalAnswerer {
  const input = options.input ?? process.stdin;
  const isTerminal = options.isTerminal ?? isatty;
  const { printer, color, stdout } = options;
  return async (question, signal): Promise<ApprovalOutcome | ApprovalDecision> => {
    if (!(input as { isTTY?: boolean }).isTTY) {
      stdout.write(
        printer.interject(
          `! ${visibleInline(question.toolName)} needs approval, but there is no terminal to ask. Re-run with --approval allow to let it run (or --approval deny to skip such calls).\n`,
        ),
      );
      return 'unavailable';
    }
    if (signal.aborted) return 'cancelled';
    // terminal: false keeps readline from redrawing (and erasing) the current line.
    const rl = createInterface({ input, terminal: false });
    let onInputError: (() => void) | undefined;
    try {
      stdout.write(printer.interject(approvalPromptText(question, color)));
      const answer = await new Promise<string>((resolve) => {
        rl.once('line', (line) => resolve(line));
        rl.once('close', () => resolve(ENDED));
        // An EIO from a hung-up terminal arrives as an error of the input.
        rl.on('error', () => resolve(ENDED));
        onInputError = () => resolve(ENDED);
        (input as NodeJS.EventEmitter).once('error', onInputError);
        signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
      });
      if (answer === ABORTED) return 'cancelled';
      if (answer === ENDED) {
        if (!isTerminal(0)) {
          options.onHangup();
          return 'cancelled';
        }
        return parseApprovalAnswer('', question);
      }
      return parseApprovalAnswer(answer, question);
    } finally {
      if (onInputError) (input as NodeJS.EventEmitter).off('error', onInputError);
      rl.close();
    }
  };
}

/** Answers that are not lines typed (a line never holds a NUL). */
const ENDED = '\u0000ended';
const ABORTED = '\u0000aborted';
