/**
 * Redaction of a bundle's content before it is written (issue 26). Removed, wherever they appear
 * in a string (event payloads, headers, titles, checkpoint text files):
 * - `configured-key`: the API keys this installation is configured with (Settings' key vault and
 *   the providers' key variables, {@link SettingsStore.secretValues});
 * - `env-secret`: values of this process's environment variables whose names look like keys,
 *   tokens or secrets (the same test tools use: electron/tools/tool-environment.ts);
 * - `user-listed`: every string the user passed (`--redact STR`);
 * - `secret-variable`: the value of a variable with a secret-looking name written in the content
 *   itself, as `NAME=value` / `export NAME="value"` text or as a JSON member `"NAME": "value"`
 *   (names in UPPER_SNAKE case only, so `inputTokens` in usage figures stays);
 * - `authorization-header`: the value of an `Authorization` / `Proxy-Authorization` /
 *   `X-Api-Key` / `Api-Key` / `Cookie` header, as a JSON member of that name or as
 *   `Authorization: …` text, and `Bearer <token>` anywhere.
 * Each removal becomes `[REDACTED:<kind>]` and is recorded with its part, line and JSON pointer
 * (never the value). A secret split across two stream chunks is caught in the assembled message
 * but not in the raw chunks; binary checkpoint files are not searched.
 */
import type { JsonValue } from '../../shared/json.js';
import { isSecretName } from '../tools/tool-environment.js';
import { MAX_REDACTION_RECORDS, type RedactionKind, type RedactionRecord, type RedactionReport } from './bundle-format.js';

/** What to remove. */
export interface RedactionRules {
  /** Configured API keys. */
  readonly configuredKeys: readonly string[];
  /** Values of secret-looking environment variables. */
  readonly envSecrets: readonly string[];
  /** The user's own strings (`--redact`). */
  readonly userStrings: readonly string[];
}

/** Literal values shorter than this are not searched for (except the user's own). */
const MIN_LITERAL = 8;

const HEADER_NAME = /^(?:authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)$/i;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
const HEADER_TEXT = /\b((?:proxy-)?authorization|x-api-key)(\s*[:=]\s*)([^\r\n"',}]+)/gi;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g;
const ASSIGNMENT = /\b([A-Z][A-Z0-9_]{2,})=("[^"\n]*"|'[^'\n]*'|[^\s"'`;&|]+)/g;

function marker(kind: RedactionKind): string {
  return `[REDACTED:${kind}]`;
}

function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Applies {@link RedactionRules} and keeps the record of what it did. */
export class Redactor {
  private readonly literals: { readonly value: string; readonly kind: RedactionKind }[];
  private total = 0;
  private readonly byKind: Partial<Record<RedactionKind, number>> = {};
  private readonly places: RedactionRecord[] = [];

  constructor(rules: RedactionRules) {
    const seen = new Set<string>();
    const literals: { value: string; kind: RedactionKind }[] = [];
    const add = (values: readonly string[], kind: RedactionKind, min: number): void => {
      for (const value of values) {
        if (value.length < min || seen.has(value)) continue;
        seen.add(value);
        literals.push({ value, kind });
      }
    };
    add(rules.userStrings, 'user-listed', 1);
    add(rules.configuredKeys, 'configured-key', MIN_LITERAL);
    add(rules.envSecrets, 'env-secret', MIN_LITERAL);
    // Longest first, so a key that contains another is removed whole.
    this.literals = literals.sort((a, b) => b.value.length - a.value.length);
  }

  /** The report for the manifest. */
  report(): RedactionReport {
    return { total: this.total, byKind: { ...this.byKind }, places: this.places.slice() };
  }

  private note(part: string, line: number, pointer: string, kind: RedactionKind): void {
    this.total++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    if (this.places.length < MAX_REDACTION_RECORDS) this.places.push({ part, line, pointer, kind });
  }

  /**
   * `value` with every secret removed (the same object when nothing was; inputs are never
   * changed). `part` and `line` say where it will be written, for the record.
   */
  redactJson<T extends JsonValue>(value: T, part: string, line: number): T {
    return this.walk(value, part, line, '') as T;
  }

  /** A text file's content (or any string) with every secret removed. */
  redactText(text: string, part: string, line: number, pointer = ''): string {
    let out = text;
    for (const { value, kind } of this.literals) {
      if (!out.includes(value)) continue;
      const pieces = out.split(value);
      for (let i = 1; i < pieces.length; i++) this.note(part, line, pointer, kind);
      out = pieces.join(marker(kind));
    }
    out = out.replace(HEADER_TEXT, (whole, name: string, sep: string, val: string) => {
      if (val.startsWith('[REDACTED:')) return whole;
      this.note(part, line, pointer, 'authorization-header');
      return `${name}${sep}${marker('authorization-header')}`;
    });
    out = out.replace(BEARER, () => {
      this.note(part, line, pointer, 'authorization-header');
      return `Bearer ${marker('authorization-header')}`;
    });
    out = out.replace(ASSIGNMENT, (whole, name: string, val: string) => {
      if (name.startsWith('FORKLINE_') || !isSecretName(name) || val.includes('[REDACTED:') || /^["']?["']?$/.test(val)) return whole;
      this.note(part, line, pointer, 'secret-variable');
      return `${name}=${marker('secret-variable')}`;
    });
    return out;
  }

  private walk(value: JsonValue, part: string, line: number, pointer: string): JsonValue {
    if (typeof value === 'string') return this.redactText(value, part, line, pointer);
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item, i) => {
        const next = this.walk(item, part, line, `${pointer}/${i}`);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : value;
    }
    let changed = false;
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      const here = `${pointer}/${pointerSegment(key)}`;
      let next: JsonValue;
      if (typeof item === 'string' && item !== '' && !item.startsWith('[REDACTED:') && HEADER_NAME.test(key)) {
        this.note(part, line, here, 'authorization-header');
        next = marker('authorization-header');
      } else if (typeof item === 'string' && item !== '' && !item.startsWith('[REDACTED:') && ENV_NAME.test(key) && !key.startsWith('FORKLINE_') && isSecretName(key)) {
        this.note(part, line, here, 'secret-variable');
        next = marker('secret-variable');
      } else {
        next = this.walk(item, part, line, here);
      }
      if (next !== item) changed = true;
      out[key] = next;
    }
    return changed ? out : value;
  }
}
