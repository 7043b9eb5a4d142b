/**
 * "Test connection": one tiny request to the endpoint as the form describes it (HostApi
 * `testConnection`), showing the provider's exact error when it fails. While it runs the button
 * keeps focus (aria-disabled, common/busy-button.ts) and the result line below says so.
 */
import { useRef, useState, type ReactNode } from 'react';
import type { ConnectionTestResult } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { busyButtonProps } from '../common/busy-button.js';
import { useClient } from '../context.js';

export interface ConnectionTestButtonProps {
  readonly provider: string;
  readonly baseUrl: string;
  readonly model: string;
  /** A key typed but not saved yet (tested as is); empty = the stored / environment key. */
  readonly apiKey: string;
}

export function ConnectionTestButton({ provider, baseUrl, model, apiKey }: ConnectionTestButtonProps): ReactNode {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConnectionTestResult | { ok: false; code: 'HOST'; message: string } | undefined>();

  const buttonRef = useRef<HTMLButtonElement>(null);

  const run = async (): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setResult(undefined);
    try {
      setResult(await client.testConnection({ provider, model: model.trim(), ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey ? { apiKey } : {}) }));
    } catch (e) {
      setResult({ ok: false, code: 'HOST', message: describeError(e) });
    } finally {
      setBusy(false);
      // It kept focus while it ran (aria-disabled, not disabled); should focus have gone anyway, the button takes it back.
      focusAfterRender(() => buttonRef.current, { from: buttonRef.current });
    }
  };

  return (
    <div className="field">
      <span>Connection</span>
      <div className="inline">
        <button ref={buttonRef} type="button" data-testid="settings-test-connection" {...busyButtonProps(busy, !model.trim() || !baseUrl.trim())} onClick={() => void run()}>
          {busy ? 'Testing…' : 'Test connection'}
        </button>
      </div>
      <span role="status" aria-live="polite" className={`hint ${result ? (result.ok ? 'ok' : 'warn') : ''}`} data-testid="settings-test-result" data-ok={result ? String(result.ok) : undefined}>
        {result === undefined
          ? busy
            ? 'Sending one tiny request…'
            : 'Sends one tiny request with these settings.'
          : result.ok
            ? `Connected: ${result.model} answered in ${result.latencyMs} ms.`
            : `Failed (${result.code}): ${result.message}`}
      </span>
    </div>
  );
}
