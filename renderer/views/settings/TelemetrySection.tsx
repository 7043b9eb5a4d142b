/**
 * Settings → Live trace export (issue 26): the OTLP/HTTP endpoint running sessions' spans are
 * streamed to (OpenTelemetry GenAI conventions; e.g. a collector, Jaeger, Phoenix or Langfuse on
 * `http://127.0.0.1:4318`), and the opt-in to include message content. Empty turns it off. A bad
 * URL is named inline before anything is saved (shared/otlp-endpoint.ts, the check the host
 * repeats); the host applies a saved value at once to every running session. Keyboard: Enter in
 * the field saves.
 */
import { useState, type ReactNode } from 'react';
import { otlpEndpointError } from '../../../shared/otlp-endpoint.js';
import { describeError } from '../../host/host-client.js';
import { busyButtonProps } from '../common/busy-button.js';
import { useApp, useClient } from '../context.js';
import { useOpenSubForm } from './open-sub-forms.js';

export function TelemetrySection(): ReactNode {
  const client = useClient();
  const settings = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const [endpoint, setEndpoint] = useState(settings?.otlp?.endpoint ?? '');
  const [includeContent, setIncludeContent] = useState(settings?.otlp?.includeContent === true);
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const edited = endpoint.trim() !== (settings?.otlp?.endpoint ?? '') || includeContent !== (settings?.otlp?.includeContent === true);
  useOpenSubForm('otlp', edited ? 'the trace export settings (Save trace export)' : undefined);

  const save = async (): Promise<void> => {
    if (busy) return;
    const problem = otlpEndpointError(endpoint);
    if (problem !== undefined) {
      setError(problem);
      document.querySelector<HTMLInputElement>('[data-testid="otlp-endpoint"]')?.focus();
      return;
    }
    setBusy(true);
    try {
      const next = await client.updateSettings({ otlp: { endpoint: endpoint.trim(), includeContent } });
      setSettings(next);
      // As the host kept it, so the section no longer counts as edited (open-sub-forms.ts).
      setEndpoint(next.otlp?.endpoint ?? '');
      setIncludeContent(next.otlp?.includeContent === true);
      setSaved(true);
      setError(undefined);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  const active = settings?.otlp?.endpoint;
  return (
    <section className="mcp-section telemetry-section" data-testid="telemetry-section" aria-labelledby="telemetry-heading">
      <h3 id="telemetry-heading">Live trace export</h3>
      <div className="muted">Streams running sessions as OpenTelemetry traces (OTLP/HTTP) to a collector. A slow or absent collector never slows a session: spans are dropped and counted.</div>
      <label className="field">
        <span>OTLP endpoint (empty: off)</span>
        <input
          data-testid="otlp-endpoint"
          className="mono"
          value={endpoint}
          placeholder="http://127.0.0.1:4318"
          aria-invalid={error !== undefined}
          aria-describedby={error !== undefined ? 'otlp-error' : undefined}
          onChange={(e) => {
            setEndpoint(e.target.value);
            setError(undefined);
            setSaved(false);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void save();
            }
          }}
        />
      </label>
      <label className="field checkbox-field">
        <input
          type="checkbox"
          data-testid="otlp-include-content"
          checked={includeContent}
          onChange={(e) => {
            setIncludeContent(e.target.checked);
            setSaved(false);
          }}
        />
        <span>Include message content (prompts, answers, tool output) in the spans</span>
      </label>
      {error !== undefined && (
        <div className="error-text" role="alert" id="otlp-error" data-testid="otlp-error">
          {error}
        </div>
      )}
      <div className="dialog-buttons">
        <span className="muted" data-testid="otlp-status">
          {active ? `Exporting to ${active}${settings?.otlp?.includeContent ? ', with content' : ''}` : 'Live export is off'}
        </span>
        {saved && <span className="hint ok">Saved.</span>}
        <span className="spacer" />
        <button type="button" className="primary" data-testid="otlp-save" {...busyButtonProps(busy)} onClick={() => void save()}>
          Save trace export
        </button>
      </div>
    </section>
  );
}
