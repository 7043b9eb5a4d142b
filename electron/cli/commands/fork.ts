/**
 * `forkline fork ID [--at SEQ] [--worktree | --cwd DIR]`: a new session from a completed turn of
 * ID (the child id on stdout, where it forked on stderr). An imported session forks only with --cwd.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { visibleInline } from '../../../shared/visible-text.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, openRuntime, resolveSessionId } from '../engine-options.js';
import { UsageError } from '../error-line.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, at: { type: 'string' }, cwd: { type: 'string' }, worktree: { type: 'boolean' } },
  async run(ctx, { positionals, options }) {
    const { stdout, stderr } = ctx;
    const [id] = positionals;
    if (!id) throw new UsageError('fork needs a session id');
    const at = options.at !== undefined ? Number(options.at) : undefined;
    if (at !== undefined && (!Number.isInteger(at) || at < 0)) throw new UsageError('--at must be a seq (a non-negative integer)');
    const dir = options.cwd;
    if (dir !== undefined && options.worktree) throw new UsageError('fork takes --worktree or --cwd DIR, not both');
    if (dir !== undefined && !existsSync(dir)) throw new UsageError(`--cwd ${dir} does not exist`);
    const runtime = await openRuntime(options);
    try {
      const connection = runtime.host.connect(() => undefined);
      const sessionId = resolveSessionId(runtime, id);
      const source = runtime.repository.get(sessionId);
      if (source?.header.origin?.kind === 'imported' && dir === undefined) {
        throw new UsageError(`${sessionId} was imported (${visibleInline(source.header.origin.format)}); continue it in a folder of yours: forkline fork ${sessionId.slice(0, 8)} --cwd DIR`);
      }
      const child = await connection.forkSession({
        sessionId,
        ...(at !== undefined ? { atSeq: at } : {}),
        ...(options.worktree ? { worktree: true } : {}),
        ...(dir !== undefined ? { cwd: realpathSync(resolve(dir)) } : {}),
      });
      connection.dispose();
      stdout.write(`${child.id}\n`);
      const boundary = (child.seedLength ?? 0) - 1;
      const turn = runtime.store.readRange(child.id, boundary, boundary + 1)[0];
      const turnText = turn?.type === 'turn/end' ? `turn ${turn.data.turn} (seq ${boundary})` : `seq ${boundary}`;
      stderr.write(
        at === undefined
          ? `forked after ${turnText}, the last completed turn\n`
          : at === boundary
            ? `forked after ${turnText}\n`
            : `forked after ${turnText}: --at ${at} is after that turn ended and before the next one started\n`,
      );
      if (options.worktree || options.cwd !== undefined) stderr.write(`workspace: ${visibleInline(child.cwd ?? '(none)')}\n`);
      if (source?.header.origin?.kind === 'imported') stderr.write(`continue it: forkline resume ${visibleInline(child.id.slice(0, 8))} "your next message"\n`);
      return 0;
    } finally {
      await runtime.close();
    }
  },
});
