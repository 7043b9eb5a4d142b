/**
 * How well a command palette entry matches the words typed (pure). A label is a title — what the
 * command does, "Show branches", "Fan out…" — and often a description after it, in parentheses or
 * after a colon ("(2–8 branches from the last finished turn, on a board)"). A typed word counts
 * most as a whole word of the title, more at the title's start or end (its verb, its main noun:
 * "Show branches"), less as the start of a title word, less again inside one, and least in the
 * description, then in the group or key hint. So "branches" picks "Show branches" over the fan-out
 * that only mentions branches in its description.
 */

/** Weights of one typed word's best match; a word found nowhere excludes the command. */
const SCORE = {
  titleWordAtEdge: 8,
  titleWord: 7,
  titlePrefix: 5,
  titleInside: 3,
  descriptionWord: 2,
  descriptionPrefix: 1.5,
  descriptionInside: 1,
  elsewhere: 0.5,
} as const;

/** A label split into its title and its description (the parenthesis or the part after ": "). */
export function labelParts(label: string): { readonly title: string; readonly description: string } {
  const cut = [label.indexOf(' ('), label.indexOf(': ')].filter((i) => i > 0);
  if (cut.length === 0) return { title: label, description: '' };
  const at = Math.min(...cut);
  return { title: label.slice(0, at), description: label.slice(at) };
}

/** The words of `text`, lower-cased (letters and digits; punctuation such as "…" separates). */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The best score of `word` among `words` (whole word `exact`, its start `prefix`, inside it `inside`), 0 if none. */
function bestIn(word: string, words: readonly string[], exact: number, prefix: number, inside: number, edge?: number): number {
  let best = 0;
  words.forEach((w, i) => {
    const atEdge = edge !== undefined && (i === 0 || i === words.length - 1);
    const score = w === word ? (atEdge ? edge : exact) : w.startsWith(word) ? prefix : w.includes(word) ? inside : 0;
    best = Math.max(best, score);
  });
  return best;
}

/**
 * The match score of a command with `label` (and its `group` / key `hint`) for the typed `query`:
 * the sum of each typed word's best match (see the file comment); 0 when a word matches nowhere.
 * An empty query scores 1 for every command.
 */
export function commandMatchScore(query: string, label: string, more: string = ''): number {
  const typed = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (typed.length === 0) return 1;
  const { title, description } = labelParts(label);
  const titleWords = wordsOf(title);
  const descriptionWords = wordsOf(description);
  const rest = more.toLowerCase();
  let total = 0;
  for (const word of typed) {
    const score = Math.max(
      bestIn(word, titleWords, SCORE.titleWord, SCORE.titlePrefix, SCORE.titleInside, SCORE.titleWordAtEdge),
      // A typed word with punctuation ("log…", "(toast)") is matched in the text as typed.
      title.toLowerCase().includes(word) ? SCORE.titleInside : 0,
      bestIn(word, descriptionWords, SCORE.descriptionWord, SCORE.descriptionPrefix, SCORE.descriptionInside),
      description.toLowerCase().includes(word) ? SCORE.descriptionInside : 0,
      rest.includes(word) ? SCORE.elsewhere : 0,
    );
    if (score === 0) return 0;
    total += score;
  }
  return total;
}
