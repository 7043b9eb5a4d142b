/**
 * Settings → MCP servers: every configured server (Settings, command line, the open workspaces'
 * `.forkline/mcp.json`) once — a server that runs in several workspaces is one row saying in how
 * many, its states there and each distinct error (`mcp-server-groups.ts`) — with its tools; a
 * Trust button for a workspace file that was not started because it is not trusted; and the
 * user-level `mcpServers` JSON, saved with `updateSettings` (running servers restart when their
 * configuration changed). Live: refetches on the host's `mcp/changed` push.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { McpServerStatus } from '../../../shared/api.js';
import type { JsonValue } from '../../../shared/json.js';
import { describeError } from '../../host/host-client.js';
import { firstOf, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient } from '../context.js';
import { Badge, type BadgeTone } from '../timeline/badges.js';
import { useOpenSubForm } from './open-sub-forms.js';
import { countsLabel, groupMcpServers, placesLabel, type McpServerGroup } from './mcp-server-groups.js';

const STATE_TONE: Readonly<Record<McpServerStatus['state'], BadgeTone>> = {
  ready: 'ok',
  starting: 'info',
  idle: 'muted',
  disabled: 'muted',
  untrusted: 'warn',
  failed: 'bad',
  closed: 'bad',
};

const EXAMPLE = '{\n  "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }\n}';

/**
 * Errors to show on a row, each distinct one once: as is when every place has it (or it names its
 * workspace itself), else with the workspace it happened in (or how many).
 */
function placeErrors(group: McpServerGroup): { readonly key: string; readonly text: string }[] {
  const byError = new Map<string, string[]>();
  for (const p of group.places) if (p.error) byError.set(p.error, [...(byError.get(p.error) ?? []), p.workspace ?? '']);
  return [...byError].map(([error, where]) => ({
    key: error,
    text: where.length === group.places.length || where.every((w) => w !== '' && error.includes(w)) ? error : where.length === 1 ? `${where[0]}: ${error}` : `in ${where.length} workspaces: ${error}`,
  }));
}

function ServerRow({ server, onTrust }: { readonly server: McpServerGroup; readonly onTrust: (s: McpServerGroup) => Promise<boolean> }): ReactNode {
  const [open, setOpen] = useState(false);
  const [placesOpen, setPlacesOpen] = useState(false);
  // Trusted, the row loses its Trust button: its next control (the tools, once listed) or the row itself takes focus.
  const rowRef = useRef<HTMLLIElement>(null);
  const trust = (from: HTMLElement): void => {
    void onTrust(server).then((ok) => {
      if (ok)
        focusAfterRender(
          firstOf(
            () => rowRef.current?.querySelector<HTMLElement>('[data-testid="mcp-server-tools-toggle"]'),
            () => rowRef.current,
          ),
          { from },
        );
    });
  };
  const errors = placeErrors(server);
  const workspaces = server.places.filter((p) => p.workspace !== undefined);
  const mixed = countsLabel(server);
  return (
    <li ref={rowRef} className="mcp-server" data-testid="mcp-server" data-name={server.name} data-state={server.state} data-places={workspaces.length} tabIndex={-1}>
      <div className="mcp-server-head">
        <Badge tone={STATE_TONE[server.state]} testId="mcp-server-state">
          {server.state}
        </Badge>
        <strong>{server.name}</strong>
        <span className="muted mcp-server-where" data-testid="mcp-server-where">
          {server.source}
          {workspaces.length === 1 ? ` · ${workspaces[0]!.workspace}` : ''}
        </span>
        {mixed && (
          <span className="muted" data-testid="mcp-server-counts">
            {mixed}
          </span>
        )}
        <span className="spacer" />
        {workspaces.length > 1 && (
          <button
            type="button"
            className="link-button"
            data-testid="mcp-server-places-toggle"
            aria-expanded={placesOpen}
            title="One server process runs in each workspace with a live session"
            onClick={() => setPlacesOpen(!placesOpen)}
          >
            {placesLabel(server).replace(/^in /, '')}
          </button>
        )}
        {server.tools.length > 0 && (
          <button type="button" className="link-button" data-testid="mcp-server-tools-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
            {server.tools.length} tool{server.tools.length === 1 ? '' : 's'}
          </button>
        )}
        {server.state === 'untrusted' && server.sha256 && (
          <button type="button" data-testid="mcp-server-trust" onClick={(e) => trust(e.currentTarget)} title={`Start the servers of ${server.file ?? 'this file'} (this exact content)`}>
            Trust
          </button>
        )}
      </div>
      <code className="mcp-target">{server.target}</code>
      {errors.map((e) => (
        <div key={e.key} className="error-text mcp-error" data-testid="mcp-server-error">
          {e.text}
        </div>
      ))}
      {placesOpen && (
        <ul className="mcp-places" data-testid="mcp-server-places">
          {workspaces.map((p) => (
            <li key={p.workspace} data-testid="mcp-server-place" data-state={p.state}>
              <Badge tone={STATE_TONE[p.state]}>{p.state}</Badge> <code>{p.workspace}</code>
            </li>
          ))}
        </ul>
      )}
      {open && (
        <ul className="mcp-tools" data-testid="mcp-server-tool-list">
          {server.tools.map((t) => (
            <li key={t.name}>
              <code>{t.modelName}</code>
              {t.approval ? <Badge tone={t.approval === 'allow' ? 'ok' : t.approval === 'deny' ? 'bad' : 'muted'}>{t.approval}</Badge> : null}
              {t.description ? <span className="muted"> — {t.description}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function McpServersSection(): ReactNode {
  const client = useClient();
  const settings = useApp((s) => s.settings);
  const setSettings = useApp((s) => s.setSettings);
  const [servers, setServers] = useState<readonly McpServerStatus[] | undefined>();
  const [text, setText] = useState(() => JSON.stringify(settings?.mcpServers ?? {}, null, 2));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  useOpenSubForm('mcp', text.trim() !== JSON.stringify(settings?.mcpServers ?? {}, null, 2).trim() ? 'the edited MCP servers (Save servers)' : undefined);

  const refresh = useCallback(() => {
    client.listMcpServers({}).then(setServers, (e: unknown) => setError(describeError(e)));
  }, [client]);

  useEffect(() => {
    refresh();
    return client.onPush((push) => {
      if (push.kind === 'mcp/changed') refresh();
    });
  }, [client, refresh]);

  const groups = useMemo(() => (servers ? groupMcpServers(servers) : undefined), [servers]);
  const trust = async (server: McpServerGroup): Promise<boolean> => {
    if (!server.file || !server.sha256) return false;
    try {
      setServers(await client.trustMcpConfig({ file: server.file, sha256: server.sha256 }));
      return true;
    } catch (e) {
      setError(describeError(e));
      return false;
    }
  };

  const save = async (): Promise<void> => {
    setError(undefined);
    setSaved(false);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.trim() === '' ? '{}' : text);
    } catch (e) {
      setError(`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setError('Expected a JSON object of servers, e.g. ' + EXAMPLE.replace(/\s+/g, ' '));
      return;
    }
    const servers = 'mcpServers' in parsed ? (parsed as { mcpServers: unknown }).mcpServers : parsed;
    try {
      const next = await client.updateSettings({ mcpServers: servers as Record<string, JsonValue> });
      setSettings(next);
      setText(JSON.stringify(next.mcpServers, null, 2));
      setSaved(true);
      refresh();
    } catch (e) {
      setError(describeError(e));
    }
  };

  return (
    <section className="mcp-section" data-testid="mcp-section" aria-labelledby="mcp-heading">
      <h3 id="mcp-heading">MCP servers</h3>
      {groups === undefined ? (
        <div className="muted">Loading…</div>
      ) : groups.length === 0 ? (
        <div className="muted" data-testid="mcp-empty">
          No MCP servers configured. Add some below, in a workspace&apos;s .forkline/mcp.json, or with --mcp-config.
        </div>
      ) : (
        <ul className="mcp-servers">
          {groups.map((g) => (
            <ServerRow key={g.key} server={g} onTrust={trust} />
          ))}
        </ul>
      )}
      <label className="field">
        <span>Your servers (the &quot;mcpServers&quot; object, used in every workspace)</span>
        <textarea
          data-testid="mcp-settings-json"
          className="mono"
          rows={6}
          spellCheck={false}
          placeholder={EXAMPLE}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setSaved(false);
          }}
        />
      </label>
      {error && (
        <div className="error-text" data-testid="mcp-settings-error">
          {error}
        </div>
      )}
      <div className="dialog-buttons">
        {saved && <span className="hint ok">Saved.</span>}
        <span className="spacer" />
        <button type="button" data-testid="mcp-settings-save" onClick={() => void save()}>
          Save servers
        </button>
      </div>
    </section>
  );
}
