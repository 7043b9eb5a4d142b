/**
 * The first field where two JSON values differ, as a path (`messages[0].content`,
 * `tools[2].function.description`), and a unified diff of the two values there (the `diff`
 * package's `createTwoFilesPatch`). Object keys are visited in the logged value's order, then keys
 * only the replayed value has; arrays by index, then a length difference.
 */
import { createTwoFilesPatch } from 'diff';

/** Where two values first differ; `before` / `after` absent when the field exists on one side only. */
export interface JsonDifference {
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function keyPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first difference between `before` and `after` (parsed JSON), or undefined when they are equal. */
export function firstJsonDifference(before: unknown, after: unknown, path = ''): JsonDifference | undefined {
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common; i++) {
      const found = firstJsonDifference(before[i], after[i], `${path}[${i}]`);
      if (found) return found;
    }
    if (before.length > common) return { path: `${path}[${common}]`, before: before[common] };
    if (after.length > common) return { path: `${path}[${common}]`, after: after[common] };
    return undefined;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!(key in after)) return { path: keyPath(path, key), before: before[key] };
      const found = firstJsonDifference(before[key], after[key], keyPath(path, key));
      if (found) return found;
    }
    for (const key of Object.keys(after)) if (!(key in before)) return { path: keyPath(path, key), after: after[key] };
    return undefined;
  }
  if (before === after) return undefined;
  return { path: path === '' ? '(the whole body)' : path, before, after };
}

/** A value as diff text: a string as itself, anything else as pretty JSON; absent as nothing. */
function diffText(value: unknown, present: boolean): string {
  if (!present) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A unified diff (3 lines of context) of the two sides of a difference, labelled `logged` and `replayed`. */
export function differenceDiff(difference: JsonDifference): string {
  return createTwoFilesPatch(
    `logged ${difference.path}`,
    `replayed ${difference.path}`,
    diffText(difference.before, 'before' in difference),
    diffText(difference.after, 'after' in difference),
    undefined,
    undefined,
    { context: 3 },
  );
}
