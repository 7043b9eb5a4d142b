/**
 * Whether the active provider can take a request, judged from the settings the host reports (no
 * I/O): a model and a base URL are set, and a provider that needs a key has one. A provider that
 * passes can still refuse (a wrong key, a server that is down); the first-run card tests that with
 * `testConnection`, and the host refuses a send without a key with `MISSING_CREDENTIAL`.
 * Pure: no DOM, no React.
 */
import type { SettingsView } from '../../shared/api.js';

export type ProviderReadiness = { readonly ready: true } | { readonly ready: false; readonly code: 'SETTINGS_UNKNOWN' | 'NO_MODEL' | 'NO_BASE_URL' | 'MISSING_CREDENTIAL'; readonly message: string };

/** Readiness of `settings.active`; `undefined` settings (not loaded yet) are not ready. */
export function providerReadiness(settings: SettingsView | undefined): ProviderReadiness {
  if (!settings) return { ready: false, code: 'SETTINGS_UNKNOWN', message: 'the settings have not loaded yet' };
  const { provider, model, baseUrl } = settings.active;
  const preset = settings.presets.find((p) => p.id === provider);
  if (baseUrl.trim() === '') return { ready: false, code: 'NO_BASE_URL', message: `no base URL is set for ${preset?.label ?? provider}` };
  if (model.trim() === '') return { ready: false, code: 'NO_MODEL', message: `no model is chosen for ${preset?.label ?? provider}` };
  if (preset?.needsKey && settings.keys[provider] !== true) return { ready: false, code: 'MISSING_CREDENTIAL', message: `${preset.label} needs an API key` };
  return { ready: true };
}
