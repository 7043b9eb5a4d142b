/**
 * Settings: provider preset, base URL, model (the preset's models, the endpoint's listed models,
 * or free text), the model's limits (context window, max output), reasoning effort (when the
 * preset has values), API key (write-only; only whether one is set is shown), a connection test,
 * approval policy, and where sessions are stored; below, prices, trace export, the MCP servers and
 * the team store (each saves its own); the form's Cancel / Save in the dialog's footer. Save waits while one of those sub-forms (or the API key field) holds unsaved input,
 * and says so beside it (open-sub-forms.ts); busy buttons keep focus (common/busy-button.ts).
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { ModelListing, ModelLimitSetting, ProviderChoice, SettingsView } from '../../../shared/api.js';
import type { ApprovalPolicyName } from '../../../shared/events.js';
import { describeError } from '../../host/host-client.js';
import { firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient } from '../context.js';
import { Dialog } from '../Dialog.js';
import { busyButtonProps } from '../common/busy-button.js';
import { effortChoices } from '../common/effort-choices.js';
import { ConnectionTestButton } from './ConnectionTestButton.js';
import { McpServersSection } from './McpServersSection.js';
import { PricesSection } from './PricesSection.js';
import { TelemetrySection } from './TelemetrySection.js';
import { TeamStoreSettingsSection } from '../team/TeamSection.js';
import { ModelLimitsFields, parseTokens } from './ModelLimitsFields.js';
import { ModelListField } from './ModelListField.js';
import { LearnedLimitNote } from './LearnedLimitNote.js';
import { blockedSaveReason, SubFormsContext, useOpenSubForm, type ReportSubForm } from './open-sub-forms.js';

/** The saved limits of an endpoint + model (base URLs compared without trailing slashes). */
function savedLimits(view: SettingsView, baseUrl: string, model: string): ModelLimitSetting | undefined {
  const norm = (u: string) => u.trim().replace(/\/+$/, '');
  return view.modelLimits?.find((m) => norm(m.baseUrl) === norm(baseUrl) && m.model === model.trim());
}

const POLICIES: { value: ApprovalPolicyName; label: string }[] = [
  { value: 'ask', label: 'Ask before shell commands and file writes' },
  { value: 'allow', label: 'Allow everything' },
  { value: 'deny', label: 'Deny shell commands and file writes' },
];

function SettingsForm({
  view,
  onSaved,
  onClose,
  openSubForms,
  footer,
}: {
  readonly view: SettingsView;
  readonly onSaved: (view: SettingsView) => void;
  readonly onClose: () => void;
  /** The sub-forms holding unsaved input (open-sub-forms.ts): Save waits for them. */
  readonly openSubForms: readonly string[];
  /** The dialog's footer, where Cancel / Save go (under every section, always in view); none yet on the first render. */
  readonly footer: HTMLElement | null;
}): ReactNode {
  const client = useClient();
  const [provider, setProvider] = useState(view.active.provider);
  const [baseUrl, setBaseUrl] = useState(view.active.baseUrl);
  const [model, setModel] = useState(view.active.model);
  const [effort, setEffort] = useState(view.active.reasoningEffort ?? '');
  const [policy, setPolicy] = useState<ApprovalPolicyName>(view.approvalPolicy);
  const [apiKey, setApiKey] = useState('');
  const [keys, setKeys] = useState(view.keys);
  const [lostKeys, setLostKeys] = useState(view.lostKeys ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [keyMessage, setKeyMessage] = useState<string | undefined>();
  const preset = useMemo(() => view.presets.find((p) => p.id === provider), [view.presets, provider]);
  const [listing, setListing] = useState<ModelListing | undefined>();
  const [learnedLimits, setLearnedLimits] = useState(view.learnedLimits);
  const initialLimits = savedLimits(view, view.active.baseUrl, view.active.model);
  const [contextWindow, setContextWindow] = useState(initialLimits?.contextWindow !== undefined ? String(initialLimits.contextWindow) : '');
  const [maxOutput, setMaxOutput] = useState(initialLimits?.maxOutputTokens !== undefined ? String(initialLimits.maxOutputTokens) : '');
  const known = useMemo(() => {
    const listed = listing?.models.find((m) => m.id === model.trim());
    const fromPreset = preset?.models.find((m) => m.id === model.trim());
    const window = listed?.contextWindow ?? fromPreset?.contextWindow;
    const out = listed?.maxOutput ?? fromPreset?.maxOutputTokens;
    return { ...(window !== undefined ? { contextWindow: window } : {}), ...(out !== undefined ? { maxOutput: out } : {}) };
  }, [listing, preset, model]);

  /** Shows the saved limits of the endpoint + model now in the form. */
  const loadLimits = (nextBaseUrl: string, nextModel: string): void => {
    const saved = savedLimits(view, nextBaseUrl, nextModel);
    setContextWindow(saved?.contextWindow !== undefined ? String(saved.contextWindow) : '');
    setMaxOutput(saved?.maxOutputTokens !== undefined ? String(saved.maxOutputTokens) : '');
  };

  const chooseModel = (next: string): void => {
    setModel(next);
    loadLimits(baseUrl, next);
  };

  const choosePreset = (id: string): void => {
    setProvider(id);
    setListing(undefined);
    const p = view.presets.find((x) => x.id === id);
    if (p) {
      setBaseUrl(p.baseUrl);
      setModel(p.models[0]?.id ?? '');
      setEffort('');
      loadLimits(p.baseUrl, p.models[0]?.id ?? '');
    }
  };
  const windowValue = parseTokens(contextWindow);
  const outputValue = parseTokens(maxOutput);
  const limitsInvalid = windowValue === undefined || outputValue === undefined || (typeof windowValue === 'number' && typeof outputValue === 'number' && outputValue >= windowValue);

  // Busy buttons are disabled while their call runs, which drops focus to the page: each names where it goes back.
  const saveKeyRef = useRef<HTMLButtonElement>(null);
  const keyStatusRef = useRef<HTMLSpanElement>(null);
  const saveRef = useRef<HTMLButtonElement>(null);

  const saveKey = async (): Promise<void> => {
    if (!apiKey || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = await client.setApiKey({ provider, apiKey });
      setKeys(next.keys);
      setLostKeys(next.lostKeys ?? []);
      setApiKey('');
      setKeyMessage('Key saved.');
      onSaved(next);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
      // Saved, the field is empty and "Save key" stays disabled: the line saying so takes focus. Failed, the button does.
      focusAfterRender(
        firstOf(
          () => saveKeyRef.current,
          () => keyStatusRef.current,
        ),
        { from: saveKeyRef.current },
      );
    }
  };

  useOpenSubForm('api-key', apiKey !== '' ? 'the API key you typed (Save key)' : undefined);
  const blocked = blockedSaveReason(openSubForms);

  const save = async (): Promise<void> => {
    if (busy || blocked !== undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      const active: ProviderChoice = effort ? { provider, baseUrl: baseUrl.trim(), model: model.trim(), reasoningEffort: effort } : { provider, baseUrl: baseUrl.trim(), model: model.trim() };
      const modelLimits: ModelLimitSetting = {
        baseUrl: baseUrl.trim(),
        model: model.trim(),
        ...(typeof windowValue === 'number' ? { contextWindow: windowValue } : {}),
        ...(typeof outputValue === 'number' ? { maxOutputTokens: outputValue } : {}),
      };
      const next = await client.updateSettings({ active, approvalPolicy: policy, modelLimits });
      onSaved(next);
      onClose();
    } catch (e) {
      setError(describeError(e));
      // The dialog stays open: Save takes focus back when it is enabled again.
      focusAfterRender(() => saveRef.current, { from: saveRef.current });
    } finally {
      setBusy(false);
    }
  };

  const hasKey = keys[provider] === true;
  const keyLost = !hasKey && lostKeys.includes(provider);
  // Where to keep a key for good when the server has no OS keychain (browser mode).
  const keepHint = preset?.apiKeyEnv ? `set $${preset.apiKeyEnv} in the environment that starts \`forkline serve\`` : 'keep it in the environment that starts the server';
  return (
    <form
      id="settings-form"
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
        <input
          data-testid="settings-base-url"
          className="mono"
          value={baseUrl}
          onChange={(e) => {
            setBaseUrl(e.target.value);
            setListing(undefined);
            loadLimits(e.target.value, model);
          }}
          spellCheck={false}
        />
      </label>
      <ModelListField provider={provider} baseUrl={baseUrl} model={model} preset={preset} onModel={chooseModel} listing={listing} onListing={setListing} />
      <ModelLimitsFields contextWindow={contextWindow} maxOutput={maxOutput} onContextWindow={setContextWindow} onMaxOutput={setMaxOutput} known={known} />
      <LearnedLimitNote limits={learnedLimits} baseUrl={baseUrl} model={model} onChanged={(next) => setLearnedLimits(next.learnedLimits)} />
      {preset && effortChoices(preset.reasoningEfforts).length > 0 && (
        <label className="field">
          <span>Reasoning effort</span>
          <select data-testid="settings-effort" value={effort} onChange={(e) => setEffort(e.target.value)}>
            {effortChoices(preset.reasoningEfforts, effort).map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
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
          <button ref={saveKeyRef} type="button" data-testid="settings-api-key-save" {...busyButtonProps(busy, !apiKey)} onClick={() => void saveKey()}>
            Save key
          </button>
        </div>
        <span
          ref={keyStatusRef}
          tabIndex={-1}
          role="status"
          className={`hint ${hasKey ? 'ok' : preset?.needsKey ? 'warn' : ''}`}
          data-testid="settings-key-status"
          data-has-key={hasKey ? 'true' : 'false'}
        >
          {hasKey ? 'A key is set for this provider.' : !keyLost && preset?.needsKey === false ? 'This provider needs no key.' : 'No key set.'}
          {preset?.apiKeyEnv ? ` In browser/CLI mode the key can also come from $${preset.apiKeyEnv}.` : ''}
          {keyMessage ? ` ${keyMessage}` : ''}
        </span>
        {keyLost && (
          <span role="alert" className="hint warn" data-testid="settings-key-lost">
            The key saved here before the server restarted is gone: this server has no OS keychain and keeps keys in memory only. Paste it again, or {keepHint} to keep it.
          </span>
        )}
        {view.keysPersist === false && !keyLost && (
          <span className="hint" data-testid="settings-key-memory">
            No OS keychain here (browser mode): a key saved here lasts until the server stops. To keep it, {keepHint}.
          </span>
        )}
      </div>
      <ConnectionTestButton provider={provider} baseUrl={baseUrl} model={model} apiKey={apiKey} />
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
      {footer &&
        createPortal(
          <div className="dialog-buttons">
            {/* Visible, not only a tooltip: Save would close the dialog and lose what the sub-form holds. */}
            {blocked !== undefined && (
              <span className="hint warn" id="settings-save-blocked" data-testid="settings-save-blocked">
                {blocked}
              </span>
            )}
            <span className="spacer" />
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button
              ref={saveRef}
              type="submit"
              form="settings-form"
              className="primary"
              data-testid="settings-save"
              aria-describedby={blocked !== undefined ? 'settings-save-blocked' : undefined}
              {...busyButtonProps(busy, blocked !== undefined || !model.trim() || !baseUrl.trim() || limitsInvalid)}
            >
              Save
            </button>
          </div>,
          footer,
        )}
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
  // The sub-forms with unsaved input, in the order they first reported.
  const [subForms, setSubForms] = useState<readonly (readonly [string, string])[]>([]);
  const reportSubForm = useCallback<ReportSubForm>((key, what) => {
    setSubForms((list) => {
      const i = list.findIndex(([k]) => k === key);
      if (what === undefined) return i < 0 ? list : list.filter(([k]) => k !== key);
      if (i >= 0 && list[i]![1] === what) return list;
      return i < 0 ? [...list, [key, what]] : list.map((e, j) => (j === i ? ([key, what] as const) : e));
    });
  }, []);
  const openSubForms = useMemo(() => subForms.map(([, what]) => what), [subForms]);
  // Cancel / Save of the provider form sit in the dialog's footer: under every section (prices, trace
  // export, MCP, team store each save their own), always in view, last in Tab order.
  const [footer, setFooter] = useState<HTMLElement | null>(null);
  return (
    <Dialog title="Settings" testId="settings-dialog" onClose={close} footer={view && loaded ? <footer className="dialog-foot" data-testid="settings-footer" ref={setFooter} /> : undefined}>
      {error && !view ? (
        <div className="error-text" data-testid="settings-error">
          Could not load settings: {error}
        </div>
      ) : !view || (!loaded && !error) ? (
        <div className="muted" data-testid="settings-loading">
          Loading settings…
        </div>
      ) : (
        <SubFormsContext.Provider value={reportSubForm}>
          <SettingsForm view={view} onSaved={setSettings} onClose={close} openSubForms={openSubForms} footer={footer} />
          <PricesSection />
          <TelemetrySection />
          <McpServersSection />
          <TeamStoreSettingsSection />
        </SubFormsContext.Provider>
      )}
    </Dialog>
  );
}
