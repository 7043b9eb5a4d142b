/** `forkline run --cwd DIR [options] "task"`: a new session in DIR, one turn streamed to the terminal. */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, checkModelReady, openRuntime } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { HangupRelay, runTurn } from '../run-turn.js';
import { terminalAnswerer } from '../terminal-answerer.js';
import { TimelineText } from '../timeline-text.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, cwd: { type: 'string' } },
  async run(ctx, { positionals, options }) {
    const { color, stdout } = ctx;
    const task = positionals.join(' ').trim();
    const cwd = options.cwd;
    if (!task) throw new UsageError('run needs a task, e.g. forkline run --cwd . "make the tests pass"');
    if (!cwd) throw new UsageError('run needs --cwd DIR (the workspace folder)');
    if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd} does not exist`);
    if (!statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is a file, not a folder (the workspace is a folder)`);
    const printer = new TimelineText({ live: true, color });
    const hangup = new HangupRelay();
    const runtime = await openRuntime(options, { approvalAnswerer: terminalAnswerer({ printer, color, stdout, onHangup: () => hangup.raise() }) });
    try {
      checkModelReady(runtime);
      const connection = runtime.host.connect(() => undefined);
      const session = connection.createSession({ cwd: realpathSync(resolve(cwd)) });
      connection.dispose();
      stdout.write(`session ${session.id}\n`);
      const code = await runTurn(ctx, runtime, printer, session.id, task, { hangup });
      stdout.write(`\nsession ${session.id}\n`);
      return code;
    } finally {
      await runtime.close();
    }
  },
});
