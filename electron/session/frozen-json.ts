/**
 * The append-path twin of `shared/json.ts` `toFrozenJson`: validates a value as lossless JSON and
 * returns a deep-frozen copy in one pass, with the same rules and the same {@link NonJsonValueError}
 * (path, kind, context). It is tuned for the hot path of `Session.append` (DESIGN §13 append rate):
 * the JSONPath of a value is built only when a value is rejected (from a stack of keys), and the
 * cycle check scans the short stack of open ancestors instead of maintaining a Set.
 *
 * Rejected: `undefined` (also as a property value), functions, symbols (values and keys), BigInt,
 * NaN, ±Infinity, `-0`, sparse array holes, cycles, and objects whose prototype is neither
 * `Object.prototype` nor `null` (class instances: Date, Map, Set, typed arrays, …).
 */
import { NonJsonValueError } from '../../shared/json.js';

interface Walk {
  readonly context: string | undefined;
  /** Open ancestors of the value being visited (cycle check). */
  readonly ancestors: object[];
  /** Keys from the root to the value being visited (its JSONPath, built only on failure). */
  readonly keys: (string | number)[];
}

// Module-level functions (not closures created per call): the append path calls this once per event.
function fail(walk: Walk, what: string): never {
  let path = '$';
  for (const key of walk.keys) path += typeof key === 'number' ? `[${key}]` : `.${key}`;
  throw new NonJsonValueError(path, what, walk.context);
}

function visit(walk: Walk, v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) return fail(walk, String(v));
      if (v === 0 && 1 / v < 0) return fail(walk, '-0');
      return v;
    case 'object':
      return v === null ? null : visitObject(walk, v);
    case 'undefined':
      return fail(walk, 'undefined');
    case 'bigint':
      return fail(walk, 'BigInt');
    case 'function':
      return fail(walk, 'function');
    default:
      return fail(walk, 'symbol');
  }
}

function visitObject(walk: Walk, obj: object): object {
  const { ancestors, keys } = walk;
  for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === obj) fail(walk, 'cycle');
  ancestors.push(obj);
  let out: object;
  if (Array.isArray(obj)) {
    const n = obj.length;
    const copy = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      keys.push(i);
      if (!(i in obj)) fail(walk, 'sparse array hole');
      copy[i] = visit(walk, obj[i]);
      keys.pop();
    }
    out = copy;
  } else {
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      fail(walk, `class instance ${(obj as { constructor?: { name?: string } }).constructor?.name ?? 'unknown'}`);
    }
    if (Object.getOwnPropertySymbols(obj).length > 0) fail(walk, 'symbol key');
    const copy: Record<string, unknown> = {};
    // for-in enumerates exactly the own enumerable string keys here (the prototype is
    // Object.prototype or null, which have no enumerable properties) without allocating a key array.
    for (const key in obj) {
      keys.push(key);
      const item = visit(walk, (obj as Record<string, unknown>)[key]);
      // Assigning "__proto__" would set the copy's prototype and drop the key (JSON.parse makes it
      // an own property, so it is real data): define it as an own property instead.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
      else copy[key] = item;
      keys.pop();
    }
    out = copy;
  }
  ancestors.pop();
  return Object.freeze(out);
}

/**
 * Validates `value` as lossless JSON and returns a deep-frozen copy (never aliasing the input).
 * @param context prefix for error messages, e.g. the event type being appended.
 * @param at the JSONPath keys of `value` inside a larger document (error messages only), e.g.
 *   `['data']` so a bad value is reported at `$.data.…`.
 * @throws NonJsonValueError naming the JSONPath and the offending kind.
 */
export function copyFrozenJson<T>(value: T, context?: string, at: readonly (string | number)[] = []): T {
  return visit({ context, ancestors: [], keys: [...at] }, value) as T;
}
