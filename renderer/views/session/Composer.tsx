/**
 * The composer. Idle: Enter sends a follow-up (a new turn). While a turn runs, both ways are
 * offered and labelled: Enter queues a follow-up for the next turn, Ctrl/Cmd+Enter steers the
 * running turn (joins it at its next step); Esc cancels the run. Shift+Enter is a newline. The
 * pending inbox (queued prompts and steering not yet claimed) is listed under the input; when a
 * cancel drops them unsent, their text comes back into the input (with a notice), so nothing typed
 * is lost. A send without a working provider opens the provider setup card instead (see AppActions).
 * Above the input, while a turn runs, the activity line says what the agent is doing (ActivityLine);
 * the bar shows the provider, model and approval mode the next turn uses, with pickers (RunSettings).
 */
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { messageText } from '../../../shared/messages.js';
import { SHORTCUTS } from '../../keyboard/commands.js';
import { focusAfterRender } from '../../keyboard/focus-after-render.js';
import { matchesShortcut, shortcutLabel } from '../../keyboard/shortcut.js';
import type { SendMode } from '../../state/app-actions.js';
import { useApp, useRuntime, useSession } from '../context.js';
import { PLATFORM } from '../keyboard/use-commands.js';
import { ActivityLine } from './ActivityLine.js';
import { RunSettings } from './RunSettings.js';

export function Composer(): ReactNode {
  const runtime = useRuntime();
  const sessionId = useSession((s) => s.sessionId);
  const running = useSession((s) => s.status === 'running');
  const readOnly = useSession((s) => s.readOnly);
  const imported = useSession((s) => s.imported);
  const ready = useSession((s) => s.phase === 'ready');
  const inbox = useSession((s) => s.inbox);
  // The text lives in the app store per session, so opening another session (or an import that
  // opens one by itself) and coming back keeps what was typed.
  const text = useApp((s) => s.drafts[sessionId] ?? '');
  const setDraft = useApp((s) => s.setDraft);
  const setText = useCallback(
    (next: string | ((current: string) => string)): void => setDraft(sessionId, typeof next === 'function' ? next(runtime.app.getState().drafts[sessionId] ?? '') : next),
    [setDraft, sessionId, runtime],
  );
  const [busy, setBusy] = useState(false);
  const dropped = useSession((s) => s.dropped);
  const toast = useApp((s) => s.toast);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const disabled = readOnly || !ready;
  const steerKeys = shortcutLabel(SHORTCUTS.steer, PLATFORM);

  // Queued messages a cancel dropped: give their text back.
  const restored = useRef(dropped?.nonce ?? 0);
  useEffect(() => {
    if (!dropped || dropped.nonce === restored.current) return;
    restored.current = dropped.nonce;
    const texts = dropped.messages.map((m) => messageText(m)).filter((t) => t.trim() !== '');
    if (texts.length === 0) return;
    setText((current) => [current.trim(), ...texts].filter((t) => t !== '').join('\n\n'));
    toast(`${texts.length === 1 ? 'A queued message was' : `${texts.length} queued messages were`} not sent (the turn was cancelled); the text is back in the message box.`, 'info');
  }, [dropped, toast, setText]);

  const send = async (mode: SendMode): Promise<void> => {
    const body = text.trim();
    if (!body || disabled || busy) return;
    setBusy(true);
    try {
      // Held (no working provider: the setup card opened) or failed: the text stays.
      if ((await runtime.actions.send(sessionId, body, mode)) === 'sent') setText('');
    } finally {
      setBusy(false);
      // A Send / Queue / Steer button disables itself once the text is gone: typing goes on in the box.
      focusAfterRender(() => inputRef.current);
    }
  };
  const cancel = async (): Promise<void> => {
    const from = document.activeElement;
    await runtime.actions.cancel(sessionId);
    // The running turn's buttons go away with it.
    focusAfterRender(() => inputRef.current, { from });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.nativeEvent.isComposing || e.key !== 'Enter' || e.shiftKey) return;
    if (matchesShortcut(e, SHORTCUTS.steer, PLATFORM)) {
      e.preventDefault();
      void send(running ? 'steer' : 'followup');
    } else if (!e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      void send('followup');
    }
  };

  const pending = [...inbox.nextStep.map((m) => ({ m, target: 'next-step' as const })), ...inbox.nextTurn.map((m) => ({ m, target: 'next-turn' as const }))];
  const hint = imported
    ? 'Read-only: imported from another agent. Continue in Forkline forks it into a folder you choose.'
    : readOnly
      ? 'Read-only: another Forkline owns this session.'
      : running
        ? `Enter queues a follow-up for the next turn · ${steerKeys} steers this turn · Esc cancels · Shift+Enter newline`
        : 'Enter sends · Shift+Enter newline';

  return (
    <div className="composer" data-testid="composer" data-region="composer">
      <ActivityLine />
      {pending.length > 0 && (
        <ul className="inbox-list" data-testid="inbox-list" aria-label="Waiting to be sent">
          {pending.map(({ m, target }) => (
            <li key={`${target}:${m.id}`} className={`inbox-item target-${target}`} data-testid="inbox-item" data-target={target}>
              <span className="badge badge-info">{target === 'next-step' ? (m.source.kind === 'inject' ? 'context' : 'steering') : 'queued for the next turn'}</span>
              <span className="clip">{messageText(m)}</span>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={inputRef}
        data-testid="composer-input"
        className="composer-input"
        aria-label={running ? 'Follow-up or steering for the running turn' : 'Message'}
        aria-describedby="composer-hint"
        placeholder={
          // A read-only session's hint below says why and what to do; the box itself just says it takes no input.
          readOnly ? 'This session takes no messages here' : running ? 'Queue a follow-up, or steer the running turn…' : 'Ask for a change…'
        }
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-bar">
        {!readOnly && <RunSettings />}
        <span className="composer-hint" id="composer-hint">
          {hint}
        </span>
        <span className="composer-buttons">
          {running ? (
            <>
              <button
                type="button"
                className="primary"
                data-testid="composer-send"
                data-mode="queue"
                disabled={disabled || busy || !text.trim()}
                title="Queue a follow-up: it runs as the next turn (Enter)"
                onClick={() => void send('followup')}
              >
                Queue <kbd className="kbd">Enter</kbd>
              </button>
              <button
                type="button"
                data-testid="composer-steer"
                disabled={disabled || busy || !text.trim()}
                title={`Steer the running turn: it reads this at its next step (${steerKeys})`}
                onClick={() => void send('steer')}
              >
                Steer <kbd className="kbd">{steerKeys}</kbd>
              </button>
              <button type="button" className="danger" data-testid="composer-cancel" disabled={readOnly} title="Cancel the running turn (Esc)" onClick={() => void cancel()}>
                Cancel <kbd className="kbd">Esc</kbd>
              </button>
            </>
          ) : (
            <button type="button" className="primary" data-testid="composer-send" data-mode="followup" disabled={disabled || busy || !text.trim()} onClick={() => void send('followup')}>
              Send <kbd className="kbd">Enter</kbd>
            </button>
          )}
        </span>
      </div>
    </div>
  );
}
