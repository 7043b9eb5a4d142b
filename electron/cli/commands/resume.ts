/**
 * `forkline resume ID [options] "follow-up"`: the next turn of a stored session. An imported one
 * continues only with --cwd DIR, as a new native fork working there; --take-over takes a session
 * another running Forkline holds. With no model flags the session's last route is used.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isImportedSession } from '../../../shared/events.js';
import { visibleInline } from '../../../shared/visible-text.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, checkModelReady, modelOverrides, openRuntime, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { HangupRelay, runTurn, useLastRoute } from '../run-turn.js';
import { terminalAnswerer } from '../terminal-answerer.js';
import { TimelineText } from '../timeline-text.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, cwd: { type: 'string' }, 'take-over': { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const { color, stdout, stderr } = ctx;
    const [id, ...rest] = positionals;
    const text = rest.join(' ').trim();
    if (!id || !text) throw new UsageError('resume needs a session id and a follow-up, e.g. forkline resume ID "now add tests"');
    const printer = new TimelineText({ live: true, color });
    const hangup = new HangupRelay();
    const runtime = await openRuntime(options, { approvalAnswerer: terminalAnswerer({ printer, color, stdout, onHangup: () => hangup.raise() }) });
    try {
      let sessionId = resolveSessionId(runtime, id);
      const cwdFlag = options.cwd;
      const record = runtime.repository.get(sessionId)!;
      if (isImportedSession(record.header)) {
        // Nothing from a file is used to act (docs/security.md): the folder must be named here, and the
        // imported log stays as it was read; the work continues in a native fork of it.
        if (!cwdFlag) {
          throw new UsageError(
            `session ${sessionId} was imported from a file, so the folder and endpoint its log names are not used. Pass --cwd DIR to continue it in a folder you choose (as a new session forked from it; the imported log is kept as it is).`,
          );
        }
        if (!existsSync(cwdFlag)) throw new UsageError(`--cwd ${cwdFlag} does not exist`);
        checkModelReady(runtime);
        runtime.repository.load(sessionId);
        const connection = runtime.host.connect(() => undefined);
        const child = await connection.forkSession({ sessionId, cwd: resolve(cwdFlag) });
        connection.dispose();
        stderr.write(`continuing imported session ${sessionId} as new session ${child.id} in ${visibleInline(child.cwd ?? '')}\n`);
        sessionId = child.id;
      } else if (cwdFlag !== undefined) {
        throw new UsageError('--cwd is only for continuing an imported session; a session recorded here keeps its own folder');
      } else {
        useLastRoute(runtime, sessionId, Object.keys(modelOverrides(options)).length > 0);
      }
      checkModelReady(runtime);
      const code = await runTurn(ctx, runtime, printer, sessionId, text, { takeOver: options['take-over'] === true, hangup });
      stdout.write(`\nsession ${sessionId}\n`);
      return code;
    } finally {
      await runtime.close();
    }
  },
});
