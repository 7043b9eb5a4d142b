/**
 * `forkline rewind ID --to SEQ`: the folder restored to that turn and a new fork continuing from
 * there (the work: host/services/branch-actions.ts `rewindSession`).
 */
import { visibleInline } from '../../../shared/visible-text.js';
import { rewindSession } from '../../host/services/branch-actions.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, commandContext, intFlag, openRuntime, type CommandContext } from '../engine-options.js';
import { UsageError } from '../error-line.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, to: { type: 'string' } },
  async run(_ctx, { positionals, options }) {
    const [id] = positionals;
    if (!id) throw new UsageError('rewind needs a session id');
    const to = intFlag('to', options.to, 0);
    if (to === undefined) throw new UsageError('rewind needs --to SEQ (the seq of a turn end, as forkline show prints it)');
    const runtime = await openRuntime(options);
    try {
      return await rewindCommand(commandContext(runtime), id, to);
    } finally {
      await runtime.close();
    }
  },
});

/**
 * `forkline rewind ID --to SEQ`: the session's folder restored in place to the checkpoint of the
 * turn that ended at SEQ, after checkpointing it as it is (the abandoned line's final files, logged
 * in the old session); the conversation continues from SEQ in a new fork that works in the same
 * folder. Nothing is lost: the old session stays as a sibling branch.
 * @returns 0, printing the new session's id on stdout.
 */
export async function rewindCommand(ctx: CommandContext, id: string, toSeq: number): Promise<number> {
  const sessionId = ctx.resolveId(id);
  const r = await rewindSession(ctx.runtime, sessionId, toSeq);
  ctx.out(`${r.sessionId}\n`);
  ctx.err(
    `rewound ${visibleInline(r.folder)} to turn ${r.turn} (seq ${r.atSeq}); continue: forkline resume ${r.sessionId.slice(0, 8)} "…"\nthe abandoned line stays as session ${sessionId.slice(0, 8)}; its final files are checkpoint ${r.abandoned} (forkline fork ${sessionId.slice(0, 8)} --worktree restores them)\n`,
  );
  return 0;
}
