/**
 * Which context window and max output are in force for one endpoint + model (docs/architecture.md §5 "Context
 * window, in order"). Pure: the inputs are gathered by the host (settings, the endpoint's model
 * list, the remembered limits) and the result is logged in `request/context`.
 *
 * Order: the person's setting wins outright. Otherwise the window is what the endpoint publishes
 * (or, when it publishes nothing, our preset), lowered by any limit learned from this endpoint +
 * model (an overflow error's stated window, or the prompt size a silently truncating server
 * reported): a learned limit is an observation of the real server, so it never raises the window.
 * Max output: setting → learned → published → preset.
 */
import type { ContextWindowSource } from '../../shared/events.js';

/** Token limits from one source; each optional. */
export interface ModelLimitValues {
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/** Everything known about a model's limits, by source. */
export interface ModelLimitCandidates {
  readonly setting?: ModelLimitValues;
  readonly learned?: ModelLimitValues;
  readonly published?: ModelLimitValues;
  readonly preset?: ModelLimitValues;
}

/** The limits in force (tokens) and where the window came from. */
export interface ResolvedModelLimits {
  readonly contextWindow?: number;
  readonly contextSource?: ContextWindowSource;
  readonly maxOutputTokens?: number;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

/** Applies the order above. */
export function resolveModelLimits(candidates: ModelLimitCandidates): ResolvedModelLimits {
  const out: { contextWindow?: number; contextSource?: ContextWindowSource; maxOutputTokens?: number } = {};
  const setting = positive(candidates.setting?.contextWindow);
  const learned = positive(candidates.learned?.contextWindow);
  const published = positive(candidates.published?.contextWindow);
  const preset = positive(candidates.preset?.contextWindow);
  if (setting !== undefined) {
    out.contextWindow = setting;
    out.contextSource = 'setting';
  } else {
    const base = published ?? preset;
    const baseSource: ContextWindowSource = published !== undefined ? 'published' : 'preset';
    if (learned !== undefined && (base === undefined || learned < base)) {
      out.contextWindow = learned;
      out.contextSource = 'learned';
    } else if (base !== undefined) {
      out.contextWindow = base;
      out.contextSource = baseSource;
    }
  }
  const maxOutput =
    positive(candidates.setting?.maxOutputTokens) ?? positive(candidates.learned?.maxOutputTokens) ?? positive(candidates.published?.maxOutputTokens) ?? positive(candidates.preset?.maxOutputTokens);
  if (maxOutput !== undefined) out.maxOutputTokens = maxOutput;
  return out;
}

/** The key limits are remembered under: the endpoint's base URL (no trailing slash) and the model id. */
export function limitKey(baseUrl: string, model: string): string {
  return `${baseUrl.replace(/\/+$/, '')}|${model}`;
}
