/**
 * In the composer: what the next turn runs on and how its tool calls are approved — the provider,
 * a model picker (the provider's known models, and the endpoint's own list once the picker is
 * first focused) and the approval mode (ask / allow / deny). Both are the app's settings (they
 * apply to every session, as in Settings), saved with `updateSettings` at once; a failed save
 * shows as a toast and the pickers go back to what the host holds.
 */
import { composerProviderLabel } from './provider-label.js';
import { useState, type ReactNode } from 'react';
import type { ApprovalPolicyName } from '../../../shared/events.js';
import { useApp, useClient, useRuntime } from '../context.js';

const POLICIES: readonly { readonly value: ApprovalPolicyName; readonly label: string; readonly title: string }[] = [
  { value: 'ask', label: 'ask', title: 'Ask before shell commands, file writes and MCP tools (reads never ask)' },
  { value: 'allow', label: 'allow all', title: 'Run shell commands and file writes without asking' },
  { value: 'deny', label: 'deny all', title: 'Refuse shell commands and file writes (the model is told)' },
];

export function RunSettings(): ReactNode {
  const settings = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const client = useClient();
  const runtime = useRuntime();
  const [listed, setListed] = useState<{ readonly key: string; readonly models: readonly string[] } | undefined>();
  const [saving, setSaving] = useState(false);
  if (!settings) return null;
  const { active } = settings;
  const preset = settings.presets.find((p) => p.id === active.provider);
  const listKey = `${active.provider} ${active.baseUrl}`;
  const models = [...new Set([active.model, ...(preset?.models.map((m) => m.id) ?? []), ...(listed?.key === listKey ? listed.models : [])])].filter((m) => m !== '');

  const listModels = async (): Promise<void> => {
    if (listed?.key === listKey) return;
    setListed({ key: listKey, models: [] });
    try {
      const result = await client.listModels({ provider: active.provider, baseUrl: active.baseUrl });
      setListed({ key: listKey, models: result.models.map((m) => m.id) });
    } catch {
      // The preset's models stay offered; Settings says why listing failed.
    }
  };
  const save = async (patch: { active?: typeof active; approvalPolicy?: ApprovalPolicyName }): Promise<void> => {
    setSaving(true);
    try {
      setSettings(await client.updateSettings(patch));
    } catch (error) {
      runtime.reportError('Save the setting', error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <span className="run-settings" data-testid="run-settings">
      <span className="muted clip run-provider" data-testid="run-provider" title={`${preset?.label ?? active.provider}: ${active.baseUrl}`}>
        {composerProviderLabel(preset?.label ?? active.provider, active.provider, active.baseUrl)}
      </span>
      <select
        className="small"
        data-testid="run-model"
        aria-label="Model for the next turn (all sessions)"
        title="Model for the next turn — this is the app's setting, for every session"
        value={active.model}
        disabled={saving}
        onFocus={() => void listModels()}
        onChange={(e) => void save({ active: { ...active, model: e.target.value } })}
      >
        {models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      <label className="run-approval">
        <span className="muted">approvals</span>
        <select
          className="small"
          data-testid="run-approval"
          aria-label="Approval mode for shell commands and file writes (all sessions)"
          title={POLICIES.find((p) => p.value === settings.approvalPolicy)?.title}
          value={settings.approvalPolicy}
          disabled={saving}
          onChange={(e) => void save({ approvalPolicy: e.target.value as ApprovalPolicyName })}
        >
          {POLICIES.map((p) => (
            <option key={p.value} value={p.value} title={p.title}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
    </span>
  );
}
