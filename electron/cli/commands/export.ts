/** `forkline export ID [--out FILE]`: a stored session as JSONL, streamed page by page (memory does not grow with the session). */
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { streamExport } from '../export-stream.js';
import { openOutputFile } from '../output-file.js';
import { openStoredSessions } from '../stored-sessions.js';

export const command = defineCommand({
  options: { ...DATA_OPTIONS, out: { type: 'string' } },
  async run(ctx, { positionals, options }) {
    const [id] = positionals;
    if (!id) throw new UsageError('export needs a session id');
    const runtime = openStoredSessions(dataDirOf(options));
    try {
      // Streamed page by page with backpressure: memory does not grow with the session (export-stream.ts).
      const sessionId = resolveSessionId(runtime, id);
      const file = options.out;
      if (file) {
        const output = openOutputFile(file);
        try {
          await streamExport(runtime.repository, sessionId, output);
        } finally {
          output.close();
        }
      } else {
        const stdout = ctx.stdout;
        await streamExport(runtime.repository, sessionId, { write: (text) => stdout.writeAsync(text), get open() { return stdout.open; } });
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
