/**
 * "Replay on this build" for the HostApi's `replaySession` (issue 23, item 4): the session as this
 * host sees it (live log first, else stored and recovered) handed to the replay engine
 * (electron/replay/replay-session.ts) with this host's tools and user-level instructions file, so
 * the answer is about the build the person is running. Nothing is sent to a provider; nothing is
 * written to the session's log.
 */
import type { ReplayReport } from '../../../shared/replay.js';
import { replaySession } from '../../replay/replay-session.js';
import type { ToolDefinition } from '../../tools/tool.js';
import type { SessionReader } from './session-reader.js';

/** What a replay uses of the host. */
export interface ReplayDeps {
  readonly reader: SessionReader;
  /** The tools this host's agents get (their results come from the log; they never run). */
  readonly createTools: () => ToolDefinition[];
  /** `<data folder>/AGENTS.md`, as the host's agents read it; absent = none. */
  readonly userInstructionsFile?: string;
}

/**
 * Replays one session on this build.
 * @returns the report (outcome `cannot-replay` with `error` for a log the engine cannot drive).
 * @throws ForklineError SESSION_NOT_FOUND (as a rejection) before any work.
 */
export async function replayHostSession(deps: ReplayDeps, sessionId: string): Promise<ReplayReport> {
  const { header, events } = deps.reader.withHeader(sessionId);
  return replaySession(header, events, {
    createTools: deps.createTools,
    ...(deps.userInstructionsFile !== undefined ? { userInstructionsFile: deps.userInstructionsFile } : {}),
  });
}
