/**
 * The reasoning-effort choices, one list for every picker of them (Settings, the fan-out form):
 * "default" (nothing set: the provider's or the model's own), then the provider preset's effort
 * names as the provider spells them. A provider with no efforts offers none. Pure.
 */

/** One choice of a reasoning-effort select: its value ('' = the default) and its label. */
export interface EffortChoice {
  readonly value: string;
  readonly label: string;
}

/** The label of the choice that sets no effort. */
export const DEFAULT_EFFORT_LABEL = 'default';

/**
 * The choices for a provider whose preset accepts `efforts` (empty when it accepts none, so the
 * select is left out); `current`, when set and not among them (a value saved before), is kept.
 */
export function effortChoices(efforts: readonly string[] | undefined, current = ''): EffortChoice[] {
  const list = efforts ?? [];
  if (list.length === 0 && !current) return [];
  const values = current && !list.includes(current) ? [...list, current] : list;
  return [{ value: '', label: DEFAULT_EFFORT_LABEL }, ...values.map((v) => ({ value: v, label: v }))];
}
