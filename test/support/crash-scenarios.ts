/** Scenario constants shared by `crash-child.ts` (the child process) and the crash-recovery test. */

export const CRASH_FAILPOINTS = ['no-step', 'mid-batch', 'before-tool-call', 'in-tool-body', 'mixed'] as const;
export type CrashFailpoint = (typeof CRASH_FAILPOINTS)[number];

/** Tool calls the model asks for in turn 2 of each scenario. */
export const SCENARIO_CALLS: Record<CrashFailpoint, number> = {
  'no-step': 0,
  'mid-batch': 1,
  'before-tool-call': 2,
  'in-tool-body': 1,
  mixed: 3,
};

/** The deltas streamed in turn 2 (the parent derives the expected chunk count from these). */
export const TURN2_REASONING = 6;
export const TURN2_TEXT = 4;
export const TURN2_ARG_PARTS = ['{"command":', '"touch ', 'out.txt"}'] as const;
export const TURN1_DELTAS = 5;
