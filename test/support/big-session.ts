/**
 * Large stored sessions for the CLI's output tests (issue 20): a real SQLite `sessions.db` in a data
 * folder, written through the real store, holding completed turns whose reasoning and answers add
 * up to a chosen size. Nothing is mocked; the events are the ones an agent writes (AgentLogWriter).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Session } from '../../electron/session/session.js';
import { SqliteSessionStore } from '../../electron/store/sqlite-session-store.js';
import { AgentLogWriter, header, steppingClock } from './store-fixtures.js';

export interface BigSessionSpec {
  /** Session id. */
  readonly id: string;
  /** Turns to write (each: prompt, one step with reasoning + text, turn end). */
  readonly turns: number;
  /** Reasoning delta chunks per turn. */
  readonly reasoningChunks: number;
  /** Characters per reasoning chunk. */
  readonly chunkChars: number;
  /** Characters of answer text per turn (one delta). */
  readonly answerChars?: number;
}

/**
 * Writes a session of completed turns into `<dataDir>/sessions.db` (creating both), one turn per
 * store transaction so the writer's own memory stays small. Returns the number of events.
 */
export function writeBigSession(dataDir: string, spec: BigSessionSpec): number {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = new SqliteSessionStore(join(dataDir, 'sessions.db'));
  try {
    const session = new Session({ header: header(spec.id, { cwd: dataDir, title: `big ${spec.id}` }), now: steppingClock() });
    const w = new AgentLogWriter(session);
    let written = 0;
    for (let t = 0; t < spec.turns; t++) {
      const filler = (n: number, seed: number) => `${'reasoning about the next change '.repeat(Math.ceil(n / 32)).slice(0, n - 8)}${String(seed).padStart(8, '0')}`;
      w.inboxInsert(`task ${t}`);
      w.turnStart();
      w.claim();
      w.stepStart();
      w.user(`task ${t}`);
      if (t === 0) w.requestHeader();
      const reasoning = Array.from({ length: spec.reasoningChunks }, (_, i) => filler(spec.chunkChars, t * spec.reasoningChunks + i));
      w.assistantMessage(w.stream({ reasoning, text: [`answer ${t}: ${'done. '.repeat(Math.ceil((spec.answerChars ?? 40) / 6))}`] }));
      w.stepEnd();
      w.turnEnd();
      const events = session.eventsFrom(written);
      if (written === 0) store.createSession(session.header, events);
      else store.append(spec.id, events);
      written = session.length;
    }
    return written;
  } finally {
    store.close();
  }
}
