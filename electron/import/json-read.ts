/** Small readers of untyped JSON values, shared by the Gemini CLI, Cline and opencode importers. */
import type { JsonObject, JsonValue } from '../../shared/json.js';

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** The value when it is a string. */
export function str(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
/** The value when it is a finite number. */
export function num(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
/** The object without `keys` (for keeping a record's remaining facts in `foreign`). */
export function withoutKeys(o: JsonObject, ...keys: string[]): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
