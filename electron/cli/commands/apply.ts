/**
 * `forkline apply BRANCH [--json]`: a branch's file changes merged three-way into its parent's
 * folder (the work: host/services/branch-actions.ts `applyBranch`).
 */
import { visibleInline, visibleText } from '../../../shared/visible-text.js';
import { applyBranch } from '../../host/services/branch-actions.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, commandContext, openRuntime, type CommandContext } from '../engine-options.js';
import { UsageError } from '../error-line.js';
import { jsonLine } from '../json-output.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS, json: { type: 'boolean' } },
  async run(_ctx, { positionals, options }) {
    const [id] = positionals;
    if (!id) throw new UsageError('apply needs a session id');
    const runtime = await openRuntime(options);
    try {
      return await applyCommand(commandContext(runtime), id, options.json === true);
    } finally {
      await runtime.close();
    }
  },
});

/**
 * `forkline apply BRANCH [--json]`: the branch's changes since its fork point merged into its
 * parent's folder (three-way). The folder is checkpointed first; the apply is logged in the parent
 * (`workspace/apply`) and its model told which files changed (an injected message, logged when its
 * next request claims it). Conflicts: nothing is written, they are listed, exit 1.
 */
export async function applyCommand(ctx: CommandContext, branchArg: string, json: boolean): Promise<number> {
  const branchId = ctx.resolveId(branchArg);
  const outcome = await applyBranch(ctx.runtime, branchId);
  const { parent: parentId, folder, before } = outcome;
  const written = outcome.files.filter((f) => f.how !== 'same');
  if (before === undefined) {
    ctx.out(json ? jsonLine({ branch: branchId, parent: parentId, applied: true, files: [], conflicts: [] }) : 'the branch changed no files since its fork point: nothing to apply\n');
    return 0;
  }
  if (json) ctx.out(jsonLine({ branch: branchId, parent: parentId, folder, before, applied: outcome.applied, files: outcome.files, conflicts: outcome.conflicts }));
  else if (outcome.applied) {
    ctx.out(`applied ${written.length} file(s) from ${branchId.slice(0, 8)} into ${visibleInline(folder)}\n`);
    for (const f of outcome.files) ctx.out(`  ${f.status} ${visibleInline(f.path)}${f.how === 'merged' ? ' (merged with your changes)' : f.how === 'same' ? ' (already so)' : ''}\n`);
    ctx.out(`undo: the folder before the apply is checkpoint ${before}\n`);
  } else {
    ctx.out(`not applied: ${outcome.conflicts.length} file(s) changed on both sides in the same lines; nothing was written\n`);
    for (const c of outcome.conflicts) {
      ctx.out(`  ${visibleInline(c.path)}\n`);
      for (const hunk of c.hunks) ctx.out(visibleText(hunk.replace(/^/gm, '    ')));
    }
  }
  return outcome.applied ? 0 : 1;
}
