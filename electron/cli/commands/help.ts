/** `forkline help` (also `-h`, `--help`): the usage text and the approval policy in force, on stdout; exit 0. */
import { visibleInline } from '../../../shared/visible-text.js';
import { defineCommand } from '../command.js';
import { APPROVAL_OPTIONS, cliApproval } from '../engine-options.js';

export const command = defineCommand({
  options: { ...APPROVAL_OPTIONS },
  async run(ctx, { options }) {
    const approval = cliApproval(options);
    ctx.stdout.write(`${ctx.usage}\n\nApproval policy in force for run and resume: ${approval.policy}, from ${visibleInline(approval.source)}.\n`);
    return 0;
  },
});
