/**
 * Settings: provider preset, base URL, model (the preset's models or free text), reasoning
 * effort (when the preset has values), API key (write-only; only whether one is set is shown),
 * approval policy, and where sessions are stored; below, the MCP servers (McpServersSection).
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ProviderChoice, SettingsView } from '../../../shared/api.js';
import type { ApprovalPolicyName } from '../../../shared/events.js';
import { describeError } from '../../host/host-client.js';
import { useApp, useClient } from '../context.js';
import { Dialog } from '../Dialog.js';
import { McpServersSection } from './McpServersSection.js';

const POLICIES: { value: ApprovalPolicyName; label: string }[] = [
  { value: 'ask', label: 'Ask before shell commands and file writes' },
  { value: 'allow', label: 'Allow everything' },
  { value: 'deny', label: 'Deny shell commands and file writes' },
];

function SettingsForm({ view, onSaved, onClose }: { readonly view: SettingsView; readonly onSaved: (view: SettingsView) => void; readonly onClose: () => void }): ReactNode {
  const client = useClient();
  const [provider, setProvider] = useState(view.active.provider);
  const [baseUrl, setBaseUrl] = useState(view.active.baseUrl);
  const [model, setModel] = useState(view.active.model);
  const [effort, setEffort] = useState(view.active.reasoningEffort ?? '');
  const [policy, setPolicy] = useState<ApprovalPolicyName>(view.approvalPolicy);
  const [apiKey, setApiKey] = useState('');
  const [keys, setKeys] = useState(view.keys);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [keyMessage, setKeyMessage] = useState<string | undefined>();
  const preset = useMemo(() => view.presets.find((p) => p.id === provider), [view.presets, provider]);

  const choosePreset = (id: string): void => {
    setProvider(id);
    const p = view.presets.find((x) => x.id === id);
    if (p) {
      setBaseUrl(p.baseUrl);
      setModel(p.models[0]?.id ?? '');
      setEffort('');
    }
  };

  const saveKey = async (): Promise<void> => {
    if (!apiKey) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = await client.setApiKey({ provider, apiKey });
      setKeys(next.keys);
      setApiKey('');
      setKeyMessage('Key saved.');
      onSaved(next);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const save = async (): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      const active: ProviderChoice = effort ? { provider, baseUrl: baseUrl.trim(), model: model.trim(), reasoningEffort: effort } : { provider, baseUrl: baseUrl.trim(), model: model.trim() };
      const next = await client.updateSettings({ active, approvalPolicy: policy });
      onSaved(next);
      onClose();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const hasKey = keys[provider] === true;
  return (
    <form
      className="settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label className="field">
        <span>Provider</span>
        <select data-testid="settings-preset" value={provider} onChange={(e) => choosePreset(e.target.value)}>
          {view.presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
          {!preset && <option value={provider}>{provider}</option>}
        </select>
      </label>
      <label className="field">
        <span>Base URL</span>
        <input data-testid="settings-base-url" className="mono" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} spellCheck={false} />
      </label>
      <label className="field">
        <span>Model</span>
        <input data-testid="settings-model" className="mono" list="settings-model-choices" value={model} onChange={(e) => setModel(e.target.value)} spellCheck={false} />
        <datalist id="settings-model-choices">
          {preset?.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.contextWindow ? `${m.id} (${Math.round(m.contextWindow / 1000)}k context)` : m.id}
            </option>
          ))}
        </datalist>
      </label>
      {preset && preset.reasoningEfforts.length > 0 && (
        <label className="field">
          <span>Reasoning effort</span>
          <select data-testid="settings-effort" value={effort} onChange={(e) => setEffort(e.target.value)}>
            <option value="">default</option>
            {preset.reasoningEfforts.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="field">
        <span>API key</span>
        <div className="inline">
          <input
            data-testid="settings-api-key"
            type="password"
            autoComplete="off"
            placeholder={hasKey ? 'a key is set — type to replace it' : 'paste a key'}
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
          />
          <button type="button" data-testid="settings-api-key-save" disabled={busy || !apiKey} onClick={() => void saveKey()}>
            Save key
          </button>
        </div>
        <span className={`hint ${hasKey ? 'ok' : preset?.needsKey ? 'warn' : ''}`} data-testid="settings-key-status" data-has-key={hasKey ? 'true' : 'false'}>
          {hasKey ? 'A key is set for this provider.' : preset?.needsKey === false ? 'This provider needs no key.' : 'No key set.'}
          {preset?.apiKeyEnv ? ` In browser/CLI mode the key can also come from $${preset.apiKeyEnv}.` : ''}
          {keyMessage ? ` ${keyMessage}` : ''}
        </span>
      </div>
      <label className="field">
        <span>Approvals</span>
        <select data-testid="settings-approval-policy" value={policy} onChange={(e) => setPolicy(e.target.value as ApprovalPolicyName)}>
          {POLICIES.map((p) => (
            <option key={p.value} value={p.value}>
              {p.value} — {p.label}
            </option>
          ))}
        </select>
      </label>
      <div className="field">
        <span>Data folder</span>
        <code data-testid="settings-data-dir">{view.dataDir}</code>
      </div>
      {error && (
        <div className="error-text" data-testid="settings-error">
          {error}
        </div>
      )}
      <div className="dialog-buttons">
        <span className="spacer" />
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="primary" data-testid="settings-save" disabled={busy || !model.trim() || !baseUrl.trim()}>
          Save
        </button>
      </div>
    </form>
  );
}

export function SettingsDialog(): ReactNode {
  const client = useClient();
  const view = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const openSettings = useApp((s) => s.openSettings);
  const [error, setError] = useState<string | undefined>();
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let live = true;
    client.getSettings({}).then(
      (v) => {
        if (!live) return;
        setSettings(v);
        setLoaded(true);
      },
      (e: unknown) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, setSettings]);

  const close = (): void => openSettings(false);
  return (
    <Dialog title="Settings" testId="settings-dialog" onClose={close}>
      {error && !view ? (
        <div className="error-text" data-testid="settings-error">
          Could not load settings: {error}
        </div>
      ) : !view || (!loaded && !error) ? (
        <div className="muted" data-testid="settings-loading">
          Loading settings…
        </div>
      ) : (
        <>
          <SettingsForm view={view} onSaved={setSettings} onClose={close} />
          <McpServersSection />
        </>
      )}
    </Dialog>
  );
}
