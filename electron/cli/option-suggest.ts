/**
 * "Did you mean …?" for mistyped command-line options and commands: the nearest known name by
 * Damerau–Levenshtein distance (adjacent transpositions count as one edit), when it is close enough
 * to be a plausible typo (at most a third of the longer name, and at most 3 edits).
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name nearest to `given`, or undefined when none is close. A known name that starts
 * with `given` (an abbreviation) wins when it is the only one.
 */
export function nearest(given: string, known: readonly string[]): string | undefined {
  const g = given.toLowerCase();
  const prefixed = known.filter((k) => k.toLowerCase().startsWith(g));
  if (g.length >= 2 && prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(g, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(g.length, best.name.length) / 3)));
  return best.distance <= limit ? best.name : undefined;
}

/**
 * The message for an unknown `--option`: names it and suggests the nearest known option.
 * @param option as typed, with its dashes (`--modle`, `-x`).
 */
export function unknownOptionMessage(option: string, knownLongOptions: readonly string[]): string {
  const bare = option.replace(/^-+/, '').split('=')[0]!;
  const suggestion = nearest(bare, knownLongOptions);
  return `unknown option ${option.split('=')[0]}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`;
}

/** The message for an unknown command, suggesting the nearest one. */
export function unknownCommandMessage(command: string, commands: readonly string[]): string {
  const suggestion = nearest(command, commands);
  return `unknown command ${command}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
}
