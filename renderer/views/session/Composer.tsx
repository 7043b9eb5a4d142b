/**
 * The composer: Enter sends a follow-up when the agent is idle and steers it while it runs
 * (Shift+Enter for a newline); Cancel while running; the pending inbox (queued prompts and
 * steering not yet claimed) is listed under the input.
 */
import { useState, type KeyboardEvent, type ReactNode } from 'react';
import { messageText } from '../../../shared/messages.js';
import { useClient, useRuntime, useSession } from '../context.js';

export function Composer(): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const sessionId = useSession((s) => s.sessionId);
  const running = useSession((s) => s.status === 'running');
  const readOnly = useSession((s) => s.readOnly);
  const imported = useSession((s) => s.imported);
  const ready = useSession((s) => s.phase === 'ready');
  const inbox = useSession((s) => s.inbox);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const mode = running ? 'steer' : 'followup';
  const disabled = readOnly || !ready;

  const send = async (): Promise<void> => {
    const body = text.trim();
    if (!body || disabled || busy) return;
    setBusy(true);
    try {
      if (mode === 'steer') await client.steer({ sessionId, text: body });
      else await client.followup({ sessionId, text: body });
      setText('');
    } catch (error) {
      runtime.reportError(mode === 'steer' ? 'Steer' : 'Send', error);
    } finally {
      setBusy(false);
    }
  };

  const cancel = async (): Promise<void> => {
    try {
      await client.cancel({ sessionId });
    } catch (error) {
      runtime.reportError('Cancel', error);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  const pending = [...inbox.nextStep.map((m) => ({ m, target: 'next-step' as const })), ...inbox.nextTurn.map((m) => ({ m, target: 'next-turn' as const }))];

  return (
    <div className="composer" data-testid="composer">
      {pending.length > 0 && (
        <ul className="inbox-list" data-testid="inbox-list">
          {pending.map(({ m, target }) => (
            <li key={`${target}:${m.id}`} className={`inbox-item target-${target}`} data-testid="inbox-item" data-target={target}>
              <span className="badge badge-info">{target === 'next-step' ? (m.source.kind === 'inject' ? 'context' : 'steering') : 'queued'}</span>
              <span className="clip">{messageText(m)}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        <textarea
          data-testid="composer-input"
          className="composer-input"
          placeholder={
            imported
              ? 'Read-only: this session was imported from another agent. Use “Continue in Forkline” above to go on in a live session.'
              : readOnly
                ? 'Read-only: another Forkline owns this session'
                : running
                  ? 'Steer the running turn… (Enter)'
                  : 'Ask for a change… (Enter to send, Shift+Enter for a newline)'
          }
          value={text}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          disabled={disabled}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer-buttons">
          <button type="button" className="primary" data-testid="composer-send" data-mode={mode} disabled={disabled || busy || !text.trim()} onClick={() => void send()}>
            {mode === 'steer' ? 'Steer' : 'Send'}
          </button>
          {running && (
            <button type="button" className="danger" data-testid="composer-cancel" disabled={readOnly} onClick={() => void cancel()}>
              Cancel
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
