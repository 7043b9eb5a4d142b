/**
 * Lossless JSON values and the one-pass validate + copy + deep-freeze used at every append.
 *
 * Pure: no Node, no DOM. Used by the session (events), the store (decoding) and the host (IPC
 * payloads).
 */
import { firstLoneSurrogate, isWellFormedText, toWellFormedText } from './well-formed-text.js';

/** A JSON value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object (plain record). */
export type JsonObject = { readonly [key: string]: JsonValue };

/**
 * Thrown when a value is not lossless JSON. `path` is a JSONPath-like location (`$.data.chunk`),
 * `what` names the offending kind (`undefined`, `NaN`, `BigInt`, `cycle`, `class instance Date`, ...).
 */
export class NonJsonValueError extends Error {
  override readonly name = 'NonJsonValueError';
  readonly code = 'NON_JSON_DATA';
  constructor(
    readonly path: string,
    readonly what: string,
    context?: string,
  ) {
    super(`${context ? `${context}: ` : ''}${what} at ${path} is not lossless JSON`);
  }
}

/**
 * What {@link toFrozenJson} does with a string (value or key) that holds a lone surrogate:
 * `accept` keeps it, `reject` throws {@link IllFormedTextError}, `repair` replaces each lone
 * surrogate with U+FFFD and reports the location in {@link FrozenJsonReport.repaired}.
 */
export type IllFormedTextPolicy = 'accept' | 'reject' | 'repair';

/** Thrown in `reject` mode for a string with a lone surrogate; `path` is its JSONPath. */
export class IllFormedTextError extends Error {
  override readonly name = 'IllFormedTextError';
  readonly code = 'ILL_FORMED_TEXT';
  constructor(
    readonly path: string,
    readonly index: number,
    context?: string,
  ) {
    super(`${context ? `${context}: ` : ''}the string at ${path} holds a lone surrogate (UTF-16 unit ${index}), which is not valid Unicode text`);
  }
}

/** Filled by {@link toFrozenJson} in `repair` mode: the JSONPaths of strings it repaired. */
export interface FrozenJsonReport {
  readonly repaired: string[];
}

/**
 * Validates `value` as lossless JSON and returns a deep-frozen copy in one pass (used by every
 * `Session.append`, so it is tuned for speed: the JSONPath of a value is built only when a value is
 * rejected, and the cycle check scans the short stack of open ancestors).
 *
 * Rejected (with {@link NonJsonValueError}): `undefined` (also as an object property value),
 * functions, symbols (values and keys), BigInt, NaN, ±Infinity, `-0`, sparse array holes, cycles,
 * and any object whose prototype is not `Object.prototype`/`null` (class instances, Date, Map, Set,
 * typed arrays). A `"__proto__"` key stays data. The result never aliases caller-owned memory.
 */
interface Walk {
  readonly context: string | undefined;
  /** Open ancestors of the value being visited (cycle check). */
  readonly ancestors: object[];
  /** Keys from the root to the value being visited (its JSONPath, built only on failure). */
  readonly keys: (string | number)[];
  readonly text: IllFormedTextPolicy;
  readonly report: FrozenJsonReport | undefined;
}

// Module-level functions (not closures created per call): the append path calls this once per event.
function pathOf(walk: Walk): string {
  let path = '$';
  for (const key of walk.keys) path += typeof key === 'number' ? `[${key}]` : `.${key}`;
  return path;
}

function fail(walk: Walk, what: string): never {
  throw new NonJsonValueError(pathOf(walk), what, walk.context);
}

/** Applies the ill-formed-text policy to one string (a value, or a key when `isKey`). */
function checkText(walk: Walk, text: string, isKey: boolean): string {
  if (walk.text === 'accept' || isWellFormedText(text)) return text;
  const where = isKey ? `${pathOf(walk)} (key)` : pathOf(walk);
  if (walk.text === 'reject') {
    throw new IllFormedTextError(where, firstLoneSurrogate(text), walk.context);
  }
  walk.report?.repaired.push(where);
  return toWellFormedText(text);
}

function visit(walk: Walk, v: unknown): unknown {
  switch (typeof v) {
    case 'string':
      return walk.text === 'accept' ? v : checkText(walk, v, false);
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
    for (const rawKey in obj) {
      keys.push(rawKey);
      const item = visit(walk, (obj as Record<string, unknown>)[rawKey]);
      const key = walk.text === 'accept' ? rawKey : checkText(walk, rawKey, true);
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
 * @param text what to do with strings holding a lone surrogate (default `accept`).
 * @param report receives the JSONPaths of repaired strings in `repair` mode.
 * @throws NonJsonValueError naming the JSONPath and the offending kind; IllFormedTextError in
 *   `reject` mode.
 */
export function toFrozenJson<T>(value: T, context?: string, at: readonly (string | number)[] = [], text: IllFormedTextPolicy = 'accept', report?: FrozenJsonReport): T {
  return visit({ context, ancestors: [], keys: [...at], text, report }, value) as T;
}

/** Deep-freezes a value that is already known to be plain JSON (e.g. fresh from `JSON.parse`). */
export function deepFreezeJson<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreezeJson((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Structural equality for JSON values (key order ignored). */
export function jsonEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as readonly JsonValue[];
    return a.length === bb.length && a.every((x: JsonValue, i: number) => jsonEquals(x, bb[i]));
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEquals(ao[k], bo[k]));
}
