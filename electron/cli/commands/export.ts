/**
 * `forkline export ID [--out FILE]`: a stored session as JSONL, streamed page by page (memory does
 * not grow with the session). `--bundle FILE` writes a portable bundle instead (cli/bundle-commands.ts),
 * `--otlp URL|FILE` an OpenTelemetry trace (cli/otlp-command.ts).
 */
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf, intFlag, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { streamExport } from '../export-stream.js';
import { openOutputFile } from '../output-file.js';
import { openStoredSessions } from '../stored-sessions.js';

export const command = defineCommand({
  options: {
    ...DATA_OPTIONS,
    out: { type: 'string' },
    bundle: { type: 'string' },
    'with-files': { type: 'boolean' },
    redact: { type: 'string', multiple: true },
    otlp: { type: 'string' },
    'otlp-content': { type: 'boolean' },
    'otlp-timeout': { type: 'string' },
  },
  async run(ctx, { positionals, options }) {
    const [id] = positionals;
    if (!id) throw new UsageError('export needs a session id');
    const runtime = openStoredSessions(dataDirOf(options));
    try {
      if (options.otlp !== undefined) {
        const seconds = intFlag('otlp-timeout', options['otlp-timeout'], 1);
        const { exportOtlpCommand } = await import('../otlp-command.js');
        return await exportOtlpCommand({ repository: runtime.repository, err: (s) => ctx.stderr.write(s) }, resolveSessionId(runtime, id), {
          target: options.otlp,
          includeContent: options['otlp-content'] === true,
          ...(seconds !== undefined ? { timeoutMs: seconds * 1000 } : {}),
        });
      }
      if (options.bundle !== undefined) {
        const { exportBundleCommand } = await import('../bundle-commands.js');
        const bundleCtx = { repository: runtime.repository, dataDir: dataDirOf(options), env: process.env, out: (s: string) => ctx.stdout.write(s), err: (s: string) => ctx.stderr.write(s) };
        return await exportBundleCommand(bundleCtx, resolveSessionId(runtime, id), { file: options.bundle, withFiles: options['with-files'] === true, redact: options.redact ?? [] });
      }
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
        await streamExport(runtime.repository, sessionId, {
          write: (text) => stdout.writeAsync(text),
          get open() {
            return stdout.open;
          },
        });
      }
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
