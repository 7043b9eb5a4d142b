/**
 * Reasoning-effort validation and its wire form, per dialect (see {@link WireDialect}).
 * Runs before any I/O: an effort DeepSeek does not know (FIELD-NOTES D5: `auto` got HTTP 400 on
 * every compaction call) is refused locally with UNSUPPORTED_REASONING_EFFORT.
 */
import { ForklineError } from '../../shared/errors.js';
import type { WireDialect } from './providers.js';

/** A request that cannot be sent as configured; its `code` becomes the finish failure code. */
export class LlmConfigurationError extends ForklineError {
  constructor(code: 'UNSUPPORTED_REASONING_EFFORT' | 'MISSING_CREDENTIAL', message: string) {
    super(code, message);
    this.name = 'LlmConfigurationError';
  }
}

/**
 * The thinking fields of a request body, in the key order they are serialised. Empty when the
 * dialect sends none.
 * - DeepSeek: `off` → `{thinking:{type:'disabled'}}`; `low|high|max` →
 *   `{thinking:{type:'enabled'}, reasoning_effort}`;
 * - `effort` dialects: `{reasoning_effort}` when the value is one of the dialect's, else `{}`.
 */
export interface ThinkingFields {
  readonly thinking?: { readonly type: 'enabled' | 'disabled' };
  readonly reasoning_effort?: string;
}

/**
 * Validates `effort` (undefined = the dialect's default) and returns the body fields.
 * @throws LlmConfigurationError UNSUPPORTED_REASONING_EFFORT for a DeepSeek effort outside
 *   `off|low|high|max`.
 */
export function thinkingFields(dialect: WireDialect, effort: string | undefined): ThinkingFields {
  const value = effort ?? dialect.defaultReasoningEffort;
  switch (dialect.thinking) {
    case 'deepseek': {
      if (value === undefined) return {};
      if (!dialect.reasoningEfforts.includes(value)) {
        throw new LlmConfigurationError('UNSUPPORTED_REASONING_EFFORT', `reasoning effort ${JSON.stringify(value)} is not supported; use one of ${dialect.reasoningEfforts.join(', ')}`);
      }
      if (value === 'off') return { thinking: { type: 'disabled' } };
      return { thinking: { type: 'enabled' }, reasoning_effort: value };
    }
    case 'effort':
      return value !== undefined && dialect.reasoningEfforts.includes(value) ? { reasoning_effort: value } : {};
    case 'none':
      return {};
    default: {
      const never: never = dialect.thinking;
      throw new Error(`unknown thinking dialect ${String(never)}`);
    }
  }
}
