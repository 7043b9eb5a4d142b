/**
 * One turn run from the terminal (`run`, `resume`): the session's events printed as they are
 * appended, Ctrl+C / SIGTERM / SIGHUP cancelling it, and the exit code from how it ended (0
 * completed; 1 not completed, a lost claim or a failed write; 129 / 130 / 143 stopped by a signal).
 */
import { realpathSync } from 'node:fs';
import type { ProviderChoice } from '../../shared/api.js';
import type { SessionEvent } from '../../shared/events.js';
import { visibleText } from '../../shared/visible-text.js';
import type { Runtime } from '../host/runtime.js';
import { recordedHereFrom } from '../store/session-provenance.js';
import { leftoverNotice } from '../store/session-repository.js';
import type { CliContext } from './command.js';
import { reportError } from './error-line.js';
import { printMcpStatus } from './mcp-status.js';
import { listenForStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';
import { describeReason, type TimelineText } from './timeline-text.js';

/** Carries "the terminal hung up" from the approval prompt to the running turn's stop handling. */
export class HangupRelay {
  private handler: (() => void) | undefined;
  /** Set (or clear) what a hang-up does. */
  on(handler: (() => void) | undefined): void {
    this.handler = handler;
  }
  raise(): void {
    this.handler?.();
  }
}

/** Sends `text` as the next message of `sessionId`, prints the turn, and returns the exit code. */
export async function runTurn(
  ctx: CliContext,
  runtime: Runtime,
  printer: TimelineText,
  sessionId: string,
  text: string,
  options: { readonly takeOver?: boolean; readonly hangup?: HangupRelay } = {},
): Promise<number> {
  const { stdout, stderr, processLog } = ctx;
  const write = (s: string) => {
    if (s !== '') stdout.write(s);
  };
  // Live output arrives through the host's feed; events are printed straight from the session,
  // synchronously, so an approval prompt always comes after the tool call it is about.
  const connection = runtime.host.connect((push) => {
    if (push.kind === 'tool/output') {
      printer.markStreamed(push.callId);
      write(printer.interject(printer.dim(visibleText(push.text))));
    }
  });
  const loaded = runtime.repository.load(sessionId);
  if (loaded.repaired > 0) write(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
  for (const left of loaded.leftovers) write(`! ${leftoverNotice(left)}\n`);
  const agent = runtime.host.ensureAgent(sessionId, options.takeOver ? { takeOver: true } : {});
  for (const event of agent.session.eventsFrom(loaded.events.length)) write(printer.render(event));
  let subscription = agent.session.onDidAppend((event) => write(printer.render(event)));
  // Taken over by `resume --take-over` elsewhere: this process's later events are not stored, so
  // nothing more is printed as if it happened; the cause is said once at the end (exit 1).
  let claimLost: unknown;
  const claimWatch = runtime.repository.onDidLoseClaim((lost) => {
    if (lost.sessionId !== sessionId || claimLost !== undefined) return;
    claimLost = lost.error;
    processLog.mute();
    subscription.dispose();
    subscription = { dispose: () => undefined };
  });
  // A write the store refused (a full disk): a turn that then fails failed because of it.
  let writeFailure: unknown;
  const writeWatch = runtime.repository.onDidFailWrite((failed) => {
    if (failed.sessionId === sessionId) writeFailure ??= failed.failure.error;
  });
  const mcpStatus = runtime.host.options.mcp
    ? printMcpStatus(runtime.host.options.mcp, workspaceOf(loaded.record.header.cwd), (line) => write(printer.interject(printer.dim(visibleText(line)))))
    : undefined;
  const turnBefore = agent.session.lastTurn;
  // Ctrl+C cancels (twice quits); SIGTERM / SIGHUP cancel with the signal as the cause, then the
  // closers are logged and the session flushed before the command exits 128 + n.
  const stops = listenForStopSignals({
    onInterrupt: () => {
      write(printer.interject('! cancelling the turn (Ctrl+C again to quit now)\n'));
      agent.cancel({ kind: 'user' });
    },
    onStop: (signal) => {
      write(printer.interject(`! ${signal}: cancelling the turn and saving the session\n`));
      agent.cancel({ kind: 'signal', signal });
    },
  });
  options.hangup?.on(() => stops.raise('SIGHUP'));
  try {
    connection.followup({ sessionId, text });
    await agent.whenIdle();
    await new Promise((r) => setImmediate(r));
  } finally {
    options.hangup?.on(undefined);
    stops.dispose();
    mcpStatus?.dispose();
    subscription.dispose();
    claimWatch.dispose();
    writeWatch.dispose();
    connection.dispose();
  }
  if (claimLost !== undefined) {
    stderr.write(reportError(claimLost).text);
    return 1;
  }
  if (stops.received !== undefined) return SIGNAL_EXIT_CODES[stops.received];
  const ends = agent.session.eventsFrom(0).filter((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end' && e.data.turn > turnBefore);
  const last = ends[ends.length - 1];
  if (!last) return 1;
  const reason = last.data.reason;
  if (reason.kind === 'error' && writeFailure !== undefined) {
    // The turn failed because the session could not be saved, not because of the model.
    stderr.write(reportError(writeFailure).text);
    return 1;
  }
  if (reason.kind === 'error') {
    const hint =
      reason.failure.code === 'AUTH'
        ? ' Check the API key.'
        : reason.failure.code === 'TRANSPORT'
          ? ' Check the base URL and that the server is running.'
          : reason.failure.code === 'MISSING_CREDENTIAL'
            ? " Set the provider's API key environment variable."
            : '';
    stderr.write(`forkline: the model request failed — ${describeReason(reason)}.${hint}\n`);
  }
  return reason.kind === 'completed' ? 0 : 1;
}

/**
 * With no model flags, a stored session goes on with the route it last used (provider, endpoint,
 * model), as recorded by this installation (never a route from an imported prefix): `resume` and
 * `compact`. A no-op when a model flag was given or nothing was recorded here.
 */
export function useLastRoute(runtime: Runtime, sessionId: string, modelFlagsGiven: boolean): void {
  if (modelFlagsGiven) return;
  const from = recordedHereFrom(runtime.repository, sessionId);
  const route = Number.isFinite(from) ? lastRoute(runtime.store.readFrom(sessionId, from)) : undefined;
  if (route) runtime.settings.useForThisRun({ ...runtime.settings.active, ...route });
}

/** The route (provider, endpoint, model, effort) of a session's last request, if it logged one. */
export function lastRoute(events: readonly SessionEvent[]): ProviderChoice | undefined {
  const context = events.findLast((e): e is SessionEvent<'request/context'> => e.type === 'request/context' && e.data.baseUrl !== undefined);
  if (!context || context.data.baseUrl === undefined) return undefined;
  const header = events.findLast((e): e is SessionEvent<'request/header'> => e.type === 'request/header');
  const effort = header?.data.header.config.reasoningEffort;
  return { provider: context.data.provider, baseUrl: context.data.baseUrl, model: context.data.model, ...(effort !== undefined ? { reasoningEffort: effort } : {}) };
}

/** The workspace folder as the host keys it (its real path). */
function workspaceOf(cwd: string | undefined): string {
  try {
    return realpathSync(cwd ?? '.');
  } catch {
    return cwd ?? '';
  }
}
