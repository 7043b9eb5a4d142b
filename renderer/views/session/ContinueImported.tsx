/**
 * The banner of an imported session (docs/importing.md): it is read-only here (send and compact are off),
 * and "Continue in Forkline" forks it at its last closed turn — or the last one before a record
 * this build cannot replay — into a live session in a folder the person chooses (the folder named
 * in the foreign log is never used). The child opens at once, ready for the next message, on
 * whatever provider is set.
 */
import { useState, type ReactNode } from 'react';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient, useRuntime, useSession } from '../context.js';
import { FolderBrowser } from '../sidebar/FolderBrowser.js';

const FORMAT_LABELS: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  openhands: 'OpenHands',
  'deepseek-harness': 'DeepSeek Harness',
  forkline: 'a Forkline export',
  'gemini-cli': 'Gemini CLI',
  cline: 'Cline / Roo Code',
  opencode: 'opencode',
};

export function ImportedBanner(): ReactNode {
  const imported = useSession((s) => s.imported);
  const header = useSession((s) => s.header);
  const sessionId = useSession((s) => s.sessionId);
  const client = useClient();
  const runtime = useRuntime();
  const select = useApp((s) => s.select);
  const toast = useApp((s) => s.toast);
  const [browsing, setBrowsing] = useState(false);
  const [busy, setBusy] = useState(false);
  const sessions = useApp((s) => s.sessions);
  if (!imported) return null;
  const origin = header?.origin?.kind === 'imported' ? header.origin : undefined;
  const label = FORMAT_LABELS[imported.format] ?? imported.format;
  const limit = imported.continuableUntilSeq;
  const blocked = limit === -1;
  // A sub-agent's log names the session that started it; that session is here when it was imported too.
  const spawnedBy = origin?.spawnedBy;
  const parent = spawnedBy ? sessions.find((s) => s.id === spawnedBy.sessionId) : undefined;

  const continueIn = async (cwd: string): Promise<void> => {
    setBrowsing(false);
    setBusy(true);
    try {
      const child = await client.forkSession({ sessionId, cwd, ...(limit !== undefined && limit >= 0 ? { atSeq: limit } : {}) });
      await runtime.refreshSessions();
      // The banner goes with the imported session: the fork's composer takes focus.
      select(child.id, { focusSession: true });
      toast(`Continued in Forkline: a live session in ${child.cwd ?? cwd}. Its history is the imported conversation; send the next message.`, 'info');
    } catch (error) {
      runtime.reportError('Continue in Forkline', error);
      focusAfterRender(byTestId('continue-in-forkline'));
    } finally {
      setBusy(false);
    }
  };

  const start = async (): Promise<void> => {
    try {
      const chosen = await client.chooseWorkspace({});
      if (chosen) await continueIn(chosen.path);
      else setBrowsing(true);
    } catch (error) {
      runtime.reportError('Choose folder', error);
    }
  };

  return (
    <div className="banner imported" data-testid="imported-banner">
      <span>
        {origin?.file?.startsWith('team:') ? (
          <>
            From the team store, published by <b>{origin.file.split(':')[1]}</b>;{' '}
          </>
        ) : null}
        Imported from <b>{label}</b>
        {origin?.formatVersion ? ` ${origin.formatVersion}` : ''}
        {origin?.file ? ` (${origin.file})` : ''} — read-only: inspect, search, compare and export it here.{' '}
        {blocked
          ? 'It cannot be continued: an early record changed what its model saw and cannot be replayed.'
          : limit !== undefined
            ? `It can be continued up to seq ${limit} (a later record changed what its model saw and cannot be replayed).`
            : 'Continue it as a live session in a folder of yours, with any provider.'}
        {spawnedBy && (
          <span data-testid="imported-spawned-by">
            {' '}
            A sub-agent{spawnedBy.agentId ? ` (${spawnedBy.agentId})` : ''} started by{' '}
            {parent ? (
              <button type="button" className="link" data-testid="open-spawning-session" onClick={() => select(parent.id, { focusSession: true })}>
                {parent.title ?? parent.id.slice(0, 8)}
              </button>
            ) : (
              <>session {spawnedBy.sessionId.slice(0, 8)} (not imported here)</>
            )}
            .
          </span>
        )}
      </span>
      <button type="button" className="primary small" data-testid="continue-in-forkline" disabled={busy || blocked} onClick={() => void start()}>
        Continue in Forkline
      </button>
      {browsing && <FolderBrowser onChoose={(path) => void continueIn(path)} onCancel={() => setBrowsing(false)} />}
    </div>
  );
}
