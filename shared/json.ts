/**
 * Lossless JSON values and the one-pass validate + copy + deep-freeze used at every append.
 *
 * Pure: no Node, no DOM. Used by the session (events), the store (decoding) and the host (IPC
 * payloads).
 */

/** A JSON value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

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
 * Validates `value` as lossless JSON and returns a deep-frozen copy in one pass.
 *
 * Rejected (with {@link NonJsonValueError}): `undefined` (also as an object property value),
 * functions, symbols, BigInt, NaN, ±Infinity, `-0`, sparse arrays, cycles and shared references
 * that would form a cycle, and any object whose prototype is not `Object.prototype`/`null`
 * (class instances, Date, Map, Set, typed arrays). Already-frozen plain subtrees are still
 * copied, so the result never aliases caller-owned memory.
 *
 * @param context prefix for error messages, e.g. the event type being appended.
 */
export function toFrozenJson<T>(value: T, context?: string): T {
  const stack = new Set<object>();
  const visit = (v: unknown, path: string): JsonValue => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (!Number.isFinite(v)) throw new NonJsonValueError(path, String(v), context);
        if (Object.is(v, -0)) throw new NonJsonValueError(path, '-0', context);
        return v;
      case 'undefined':
        throw new NonJsonValueError(path, 'undefined', context);
      case 'bigint':
        throw new NonJsonValueError(path, 'BigInt', context);
      case 'function':
        throw new NonJsonValueError(path, 'function', context);
      case 'symbol':
        throw new NonJsonValueError(path, 'symbol', context);
      case 'object':
        break;
    }
    if (v === null) return null;
    const obj = v as object;
    if (stack.has(obj)) throw new NonJsonValueError(path, 'cycle', context);
    stack.add(obj);
    try {
      if (Array.isArray(obj)) {
        const out: JsonValue[] = new Array<JsonValue>(obj.length);
        for (let i = 0; i < obj.length; i++) {
          if (!(i in obj)) throw new NonJsonValueError(`${path}[${i}]`, 'sparse array hole', context);
          out[i] = visit(obj[i], `${path}[${i}]`);
        }
        return Object.freeze(out);
      }
      const proto: unknown = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) {
        const ctorName = (obj as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
        throw new NonJsonValueError(path, `class instance ${ctorName}`, context);
      }
      if (Object.getOwnPropertySymbols(obj).length > 0) {
        throw new NonJsonValueError(path, 'symbol key', context);
      }
      const out: Record<string, JsonValue> = {};
      for (const key of Object.keys(obj)) {
        out[key] = visit((obj as Record<string, unknown>)[key], `${path}.${key}`);
      }
      return Object.freeze(out);
    } finally {
      stack.delete(obj);
    }
  };
  return visit(value, '$') as T;
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
