/**
 * Under the model's limits in Settings: the context window Forkline learned for the endpoint +
 * model in the form (an overflow error's, or a silently cut prompt's), whether new sessions use it,
 * and a Forget button (HostApi `updateSettings({ forgetLearnedLimit })`). Nothing when none is known.
 */
import { useState, type ReactNode } from 'react';
import type { LearnedLimitView, SettingsView } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { useClient } from '../context.js';

/** The learned window of an endpoint + model (base URLs compared without trailing slashes). */
export function learnedLimitOf(limits: readonly LearnedLimitView[] | undefined, baseUrl: string, model: string): LearnedLimitView | undefined {
  const norm = (u: string) => u.trim().replace(/\/+$/, '');
  return limits?.find((l) => norm(l.baseUrl) === norm(baseUrl) && l.model === model.trim());
}

export function LearnedLimitNote({
  limits,
  baseUrl,
  model,
  onChanged,
}: {
  readonly limits: readonly LearnedLimitView[] | undefined;
  readonly baseUrl: string;
  readonly model: string;
  readonly onChanged: (view: SettingsView) => void;
}): ReactNode {
  const client = useClient();
  const [error, setError] = useState<string | undefined>();
  const learned = learnedLimitOf(limits, baseUrl, model);
  if (!learned) return null;
  const when = new Date(learned.at).toLocaleString();
  const why = learned.how === 'overflow-error' ? 'the endpoint said the context window was exceeded' : 'the server cut a prompt without an error (it counted far fewer prompt tokens than were sent)';
  const forget = async (): Promise<void> => {
    try {
      setError(undefined);
      onChanged(await client.updateSettings({ forgetLearnedLimit: { baseUrl: learned.baseUrl, model: learned.model } }));
    } catch (e) {
      setError(describeError(e));
    }
  };
  return (
    <div className="hint learned-limit" data-testid="settings-learned-limit" data-in-force={learned.inForce ? 'true' : 'false'}>
      <span>
        {learned.inForce ? 'Learned' : 'Seen once, not used yet'}: a context window of {learned.contextWindow.toLocaleString('en-US')} tokens — {why}, {when}.{' '}
        {learned.inForce ? 'New sessions on this model start with it (a window you enter above wins).' : 'It is used only if another request is cut the same way.'}
      </span>{' '}
      <button type="button" className="small" data-testid="settings-forget-learned-limit" onClick={() => void forget()}>
        Forget
      </button>
      {error && <span className="warn"> {error}</span>}
    </div>
  );
}
