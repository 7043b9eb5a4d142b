/**
 * `forkline import FILE|DIR…`: session logs of every known format into the store, one summary each.
 * Needs only the store: none of the agent, model client, tools or MCP is loaded; the importers are
 * loaded here with `import()`. Exit 0 all imported; 2 every failure was input we cannot read as a
 * session; 1 something else failed.
 */
import { existsSync, statSync } from 'node:fs';
import { ForklineError } from '../../../shared/errors.js';
import { formatImportSummary, type ImportSummary } from '../../../shared/import-summary.js';
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import type { ImportSource } from '../../host/services/folder-import.js';
import type { Runtime } from '../../host/runtime.js';
import { checkFileSize } from '../../session/import-limits.js';
import { defineCommand } from '../command.js';
import { DATA_OPTIONS, dataDirOf } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { EXIT_USAGE, isInputError } from '../exit-codes.js';
import { openStoredSessions } from '../stored-sessions.js';

export const command = defineCommand({
  options: { ...DATA_OPTIONS },
  async run(ctx, { positionals, options }) {
    const out = (s: string) => ctx.stdout.write(s);
    const files = positionals;
    if (files.length === 0) throw new UsageError('import needs one or more session log files');
    for (const file of files) if (!existsSync(file)) throw new UsageError(`no file ${file}`);
    for (const file of files) {
      const stat = statSync(file);
      // A FIFO or device could block or never end: only regular files (and session folders); the size is capped before reading.
      if (!stat.isFile() && !stat.isDirectory()) throw new UsageError(`${file} is not a regular file`);
      if (stat.isFile()) checkFileSize(stat.size);
    }
    const runtime = openStoredSessions(dataDirOf(options));
    // An import an earlier process did not finish (killed mid-way) is removed; the file can be imported again.
    runtime.repository.removeAbandonedImports();
    let failed = 0;
    let badInput = 0;
    const { importSources } = await import('../../host/services/folder-import.js');
    try {
      for (const [i, file] of files.entries()) {
        if (i > 0) out('\n');
        try {
          // A portable bundle (export --bundle): a tree of sessions, all or nothing.
          if (statSync(file).isFile()) {
            const bundles = await import('../bundle-commands.js');
            if (await bundles.isBundleFile(file)) {
              await bundles.importBundleCommand({ repository: runtime.repository, dataDir: dataDirOf(options), env: process.env, out, err: (s) => ctx.stderr.write(s) }, file);
              continue;
            }
          }
          // A file, or a folder of JSON files (Cline / Roo Code task, opencode storage): one import per session.
          for (const [j, source] of importSources(file).entries()) {
            if (j > 0) out('\n');
            const summary = await importFile(runtime, source);
            out(`${visibleText(formatImportSummary(summary).join('\n'))}\n`);
          }
        } catch (error) {
          if (!ForklineError.isInstance(error)) throw error;
          failed++;
          if (isInputError(error)) badInput++;
          ctx.stderr.write(`forkline: ${visibleInline(file)}: ${visibleInline(error.message)} [${error.code}]\n`);
        }
      }
      // 2 when every failure was a file we cannot read as a session; 1 when something else failed.
      return failed === 0 ? 0 : badInput === failed ? EXIT_USAGE : 1;
    } finally {
      await runtime.close();
    }
  },
});

/** Streams one file or folder session through the import pipeline (constant memory) and returns its summary. */
async function importFile(runtime: { readonly repository: Runtime['repository'] }, source: ImportSource): Promise<ImportSummary> {
  const { beginImport } = await import('../../host/services/session-imports.js');
  const job = beginImport(runtime.repository, source.fileName);
  try {
    for await (const chunk of source.chunks()) job.write(chunk);
    return job.end();
  } catch (error) {
    job.abort();
    throw error;
  }
}
