/**
 * The command palette's ranking (renderer/keyboard/command-match.ts) on the real command list: a
 * typed word in a command's title beats the same word in another's description (trial finding:
 * "branches" + Enter opened the fan-out form, whose description mentions branches, instead of
 * "Show branches"), a whole word beats a word's start, the start beats the inside, and equal
 * matches keep the list order.
 */
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../shared/api.js';
import { buildCommands, filterCommands, type CommandEffects } from '../../../renderer/keyboard/commands.js';
import { commandMatchScore, labelParts } from '../../../renderer/keyboard/command-match.js';
import { createAppStore } from '../../../renderer/state/app-store.js';

const noop = (): void => undefined;
const effects: CommandEffects = {
  newSession: noop,
  cancel: noop,
  fork: noop,
  compareWithParent: noop,
  fanOut: noop,
  replay: noop,
  editAndSend: noop,
  inspectLastRequest: noop,
  continueImported: noop,
  compact: noop,
  exportSession: noop,
  importSession: noop,
  importFolder: noop,
  focus: noop,
  cycle: noop,
  focusFind: noop,
  dismissToast: noop,
};
const summary = (id: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({ id, createdAt: 0, updatedAt: 0, eventCount: 3, status: 'idle', ...extra });

/** The commands of an open, idle session (a fork, so "Compare with the parent" is there too). */
function openSessionCommands(options: { imported?: boolean } = {}) {
  const app = createAppStore();
  app.getState().setSessions([summary('root'), summary('s1', { parentSession: 'root' })]);
  app.getState().select('s1');
  return buildCommands({ state: app.getState(), running: false, readOnly: false, imported: options.imported ?? false, approvalsPending: false }, effects);
}
const ids = (query: string, options: { imported?: boolean } = {}): string[] => filterCommands(openSessionCommands(options), query).map((c) => c.id);

describe('command palette ranking', () => {
  it('"branches" picks "Show branches", not the fan-out that mentions branches in its description', () => {
    const found = ids('branches');
    expect(found[0]).toBe('branches');
    expect(found).toContain('fan-out');
    expect(found.indexOf('branches')).toBeLessThan(found.indexOf('fan-out'));
    // The start of the word too, and with the verb typed.
    expect(ids('bran')[0]).toBe('branches');
    expect(ids('show branches')).toEqual(['branches']);
    // "compare" finds the branch tree, where sessions are ticked to be compared.
    expect(ids('compare')).toContain('branches');
  });

  it('a whole word of a title beats the start of one, which beats a word only in a description', () => {
    // "Fork …" (whole word) before "Continue in Forkline: fork this imported log…" (start of "Forkline"),
    // both before "Export bundle… (the session, its forks …)" (the start of a description word).
    const found = ids('fork', { imported: true });
    expect(found.slice(0, 3)).toEqual(['fork', 'fork-worktree', 'continue-imported']);
    expect(found.indexOf('export-bundle')).toBeGreaterThan(2);
    expect(commandMatchScore('fork', 'Fork after the last finished turn')).toBeGreaterThan(commandMatchScore('fork', 'Continue in Forkline: fork this imported log into a workspace you choose'));
  });

  it('a word at the title’s start or end (verb, main noun) beats one in its middle; ties keep the list order', () => {
    expect(commandMatchScore('outline', 'Show the outline (the turns of this session)')).toBeGreaterThan(commandMatchScore('outline', 'Hide the outline view of turns'));
    expect(commandMatchScore('session', 'New session…')).toBeGreaterThan(commandMatchScore('session', 'Go to the session list'));
    // Equal scores: list order ("Fork after …" is listed before "Fork into its own folder …").
    expect(ids('fork after the last')).toEqual(['fork', 'fork-worktree']);
    expect(ids('')).toEqual(openSessionCommands().map((c) => c.id));
  });

  it('the label before its group and key hint; every typed word must match somewhere', () => {
    // "Go to the session list" by its title before "Rename session…" whose hint is "F2 in the session list".
    expect(ids('session list')[0]).toBe('go-sessions');
    expect(ids('session list')).toContain('rename');
    expect(ids('branches zzz')).toEqual([]);
    // Punctuation typed as it reads in the label still matches.
    expect(ids('log-only')).toEqual(['log-events']);
  });

  it('splits a label into its title and its description', () => {
    expect(labelParts('Fan out… (2–8 branches from the last finished turn, on a board)')).toEqual({ title: 'Fan out…', description: ' (2–8 branches from the last finished turn, on a board)' });
    expect(labelParts('Continue in Forkline: fork this imported log')).toEqual({ title: 'Continue in Forkline', description: ': fork this imported log' });
    expect(labelParts('Show branches')).toEqual({ title: 'Show branches', description: '' });
  });
});
