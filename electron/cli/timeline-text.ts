/**
 * A session timeline as terminal text, for `forkline run` (live, streaming text deltas as they
 * arrive) and `forkline show` (replay of a stored log). Pure: events in, strings out.
 */
import type { SessionEvent, TurnEndReason } from '../../shared/events.js';
import { messageText } from '../../shared/messages.js';

export interface TimelineTextOptions {
  /** Live mode streams text deltas and skips the final message text (already printed). */
  readonly live: boolean;
  /** ANSI colours. */
  readonly color: boolean;
  /** Print the seq of each turn end (for `forkline fork --at SEQ`). */
  readonly seqs?: boolean;
}

const ANSI = { dim: '\x1b[2m', bold: '\x1b[1m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', reset: '\x1b[0m' };

/** Turns events into text, one call per event; keeps the little state that needs (step timing, streaming). */
export class TimelineText {
  private stepStart = new Map<string, number>();
  private streaming = false;
  private thinkingShown = false;
  private readonly callNames = new Map<string, string>();
  private readonly streamedCalls = new Set<string>();

  constructor(private readonly options: TimelineTextOptions) {}

  private c(code: keyof typeof ANSI, text: string): string {
    return this.options.color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
  }

  /**
   * Text printed between events (a prompt, live tool output, a notice): starts on a fresh line when
   * an answer is mid-stream, so nothing lands inside a sentence.
   */
  interject(text: string): string {
    const prefix = this.streaming ? '\n' : '';
    // Text that does not end its line leaves the cursor mid-line: the next event starts a new one.
    this.streaming = text !== '' && !text.endsWith('\n');
    return prefix + text;
  }

  dim(text: string): string {
    return this.c('dim', text);
  }

  /** Notes that a call's output was already printed live (its result then prints only its status). */
  markStreamed(callId: string): void {
    this.streamedCalls.add(callId);
  }

  /** The text to print for `event` ('' for events not shown). */
  render(event: SessionEvent): string {
    const breakStream = () => {
      if (!this.streaming) return '';
      this.streaming = false;
      return '\n';
    };
    switch (event.type) {
      case 'turn/start':
        return `${breakStream()}${this.c('bold', `━━ Turn ${event.data.turn} ━━`)}\n`;
      case 'turn/end':
        return `${breakStream()}${this.c('bold', `━━ Turn ${event.data.turn} ended: ${describeReason(event.data.reason)}`)}${this.options.seqs ? this.c('dim', `  [seq ${event.seq}]`) : ''}\n`;
      case 'step/start':
        this.stepStart.set(`${event.data.turn}/${event.data.step}`, event.time);
        this.thinkingShown = false;
        return `${breakStream()}${this.c('dim', `── step ${event.data.step}`)}\n`;
      case 'step/end': {
        const started = this.stepStart.get(`${event.data.turn}/${event.data.step}`);
        const ms = started === undefined ? undefined : event.time - started;
        return `${breakStream()}${this.c('dim', `── step ${event.data.step} done${ms === undefined ? '' : ` in ${(ms / 1000).toFixed(1)} s`}`)}\n`;
      }
      case 'user/message': {
        const kind = event.data.source.kind;
        if (kind === 'compaction') return `${breakStream()}${this.c('dim', '[compaction summary replaces earlier history]')}\n`;
        const label = kind === 'user' ? '>' : `> (${kind})`;
        return `${breakStream()}${this.c('cyan', `${label} ${messageText(event.data)}`)}\n`;
      }
      case 'assistant/chunk': {
        if (!this.options.live) return '';
        const { chunk } = event.data;
        if (chunk.type === 'text-delta') {
          this.streaming = true;
          return chunk.text;
        }
        if (chunk.type === 'reasoning-delta' && !this.thinkingShown) {
          this.thinkingShown = true;
          return this.c('dim', '(thinking…)\n');
        }
        return '';
      }
      case 'assistant/message': {
        const parts: string[] = [breakStream()];
        const { message, usage, interrupted } = event.data;
        for (const block of message.content) {
          if (block.type === 'reasoning' && !this.options.live) parts.push(this.c('dim', `(thinking) ${firstLine(block.text, 160)}\n`));
          if (block.type === 'text' && !this.options.live) parts.push(`${block.text}\n`);
          if (block.type === 'tool-call') this.callNames.set(block.id, block.name);
        }
        if (interrupted) parts.push(this.c('yellow', '[answer interrupted]\n'));
        if (usage) {
          const cache = usage.cacheReadTokens ? `, ${usage.cacheReadTokens} cached` : '';
          parts.push(this.c('dim', `[tokens: ${usage.inputTokens} in${cache}, ${usage.outputTokens} out]\n`));
        }
        return parts.join('');
      }
      case 'tool/call':
        return `${breakStream()}${this.c('yellow', `→ ${event.data.name} ${summarizeArguments(event.data.arguments)}`)}\n`;
      case 'tool/result': {
        const block = event.data.message.content[0];
        const text = block?.content.map((b) => b.text).join('') ?? '';
        const code = event.data.error?.code;
        const head = block?.isError ? this.c('red', `← error${code ? ` ${code}` : ''}`) : this.c('green', '← ok');
        const body = this.streamedCalls.has(block?.toolCallId ?? '')
          ? lastLines(text, 1)
          : block?.isError
            ? headAndTail(text, 4, 6) // an error's cause is usually at the top, its exit code at the bottom
            : lastLines(text, this.options.live ? 6 : 12);
        return `${breakStream()}${head} ${indent(body)}\n`;
      }
      case 'llm/retry':
        return `${breakStream()}${this.c('yellow', `↻ retry ${event.data.attempt} in ${event.data.delayMs} ms (${event.data.failure.code}: ${event.data.failure.message})`)}\n`;
      case 'approval/asked':
        return `${breakStream()}${this.c('yellow', `? approval needed for ${event.data.toolName}${event.data.reason ? ` (${event.data.reason})` : ''}`)}\n`;
      case 'approval/decided':
        return `${breakStream()}${this.c('dim', `  approval: ${event.data.outcome}`)}\n`;
      case 'session/end-seed':
        return `${breakStream()}${this.c('dim', '··· resumed here ···')}\n`;
      case 'instructions/loaded': {
        const files = event.data.files.map((f) => f.shownPath).join(', ');
        const where = event.data.placement === 'tool-result' ? ' (added to the tool result)' : '';
        return `${breakStream()}${this.c('dim', files === '' ? '[project instructions: none in force]' : `[project instructions: ${files}${where}]`)}\n`;
      }
      case 'compaction/summary':
        return `${breakStream()}${this.c('dim', `[compacted ${event.data.shadowedSeqs.length} messages]`)}\n`;
      default:
        return '';
    }
  }
}

/** Human words for a turn-end reason. */
export function describeReason(reason: TurnEndReason): string {
  switch (reason.kind) {
    case 'completed':
      return 'completed';
    case 'max-tokens':
      return 'stopped at the output token limit';
    case 'blocked':
      return 'blocked';
    case 'interrupted':
      return 'interrupted (the app closed or crashed during the turn)';
    case 'aborted':
      return `cancelled (${reason.cause.kind})`;
    case 'error':
      return `error ${reason.failure.code}: ${reason.failure.message}`;
  }
}

function summarizeArguments(raw: string): string {
  try {
    const args = JSON.parse(raw) as Record<string, unknown>;
    const key = ['command', 'path', 'pattern'].find((k) => typeof args[k] === 'string');
    if (key) return firstLine(String(args[key]), 120);
  } catch {
    // Shown raw below.
  }
  return firstLine(raw, 120);
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function lastLines(text: string, n: number): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= n) return lines.join('\n');
  const more = lines.length - n;
  return [`… (${more} more line${more === 1 ? '' : 's'})`, ...lines.slice(-n)].join('\n');
}

function headAndTail(text: string, head: number, tail: number): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  if (lines.length <= head + tail + 1) return lines.join('\n');
  const more = lines.length - head - tail;
  return [...lines.slice(0, head), `… (${more} more line${more === 1 ? '' : 's'})`, ...lines.slice(-tail)].join('\n');
}

function indent(text: string): string {
  return text.split('\n').join('\n    ');
}
