/**
 * Whether two JSON-shaped values would serialise to the same text (replay's fast path for a
 * request that rebuilds unchanged, replay-session.ts): the same primitives, arrays of the same
 * length with the same items, objects with the same own keys *in the same order* (JSON.stringify
 * writes keys in insertion order) and the same values. `undefined` members and functions compare
 * strictly; a key whose value is `undefined` on one side only counts as a difference although
 * JSON.stringify would drop it, so the answer errs only towards "different", never "same" for two
 * values that print differently.
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  return sameJsonValueExcept(a, b, undefined);
}

/**
 * {@link sameJsonValue}, not counting the member `ignored` of `a` and `b` themselves (when both are
 * objects; nested members of that name count): for values whose serialiser never writes it.
 */
export function sameJsonValueExcept(a: unknown, b: unknown, ignored: string | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN prints as null on both sides; any other mismatch differs.
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  const aArray = Array.isArray(a);
  if (aArray !== Array.isArray(b)) return false;
  if (aArray) {
    const x = a as readonly unknown[];
    const y = b as readonly unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameJsonValue(x[i], y[i])) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const xKeys = ignored === undefined ? Object.keys(a) : Object.keys(a).filter((k) => k !== ignored);
  const yKeys = ignored === undefined ? Object.keys(b) : Object.keys(b).filter((k) => k !== ignored);
  if (xKeys.length !== yKeys.length) return false;
  for (let i = 0; i < xKeys.length; i++) {
    const key = xKeys[i]!;
    if (key !== yKeys[i]) return false;
    if (!sameJsonValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
