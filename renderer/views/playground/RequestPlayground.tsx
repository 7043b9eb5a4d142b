/**
 * The request playground (issue 23, item 5), the request inspector's "Edit and send" tab: the
 * logged request as editable fields (system prompt; messages, tools and parameters as JSON, each
 * checked as you type with its error under it), a provider and model among the configured ones,
 * Send — the response streams beside the logged answer — and the scratch runs of this step, kept
 * by the host beside the log (never in it). "Fork with this prompt" turns an edited typed prompt
 * into a real branch: a fork before that prompt's turn, with the edited prompt sent in it.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { RequestInspection, SettingsView } from '../../../shared/api.js';
import { formatDuration, isoTime } from '../../../shared/format.js';
import { checkPlaygroundEdit, editedPrompt, playgroundEditOf, type PlaygroundEdit, type PlaygroundFieldError, type PlaygroundRoute, type PlaygroundRun } from '../../../shared/playground.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { loadPlaygroundRuns } from '../../state/playground-runs.js';
import { useClient, useRuntime } from '../context.js';

/** A route the picker offers, with its label. */
interface RouteChoice extends PlaygroundRoute {
  readonly key: string;
  readonly label: string;
  readonly models: readonly string[];
}

/** The active route first, then every preset that has a key (or needs none). */
function routeChoices(settings: SettingsView): RouteChoice[] {
  const active = settings.active;
  const activePreset = settings.presets.find((p) => p.id === active.provider);
  const out: RouteChoice[] = [
    {
      key: 'active',
      label: `${activePreset?.label ?? active.provider} (active) · ${active.baseUrl}`,
      provider: active.provider,
      baseUrl: active.baseUrl,
      model: active.model,
      models: [active.model, ...(activePreset?.models.map((m) => m.id) ?? [])],
    },
  ];
  for (const p of settings.presets) {
    if (p.id === active.provider && p.baseUrl === active.baseUrl) continue;
    if (p.needsKey && !settings.keys[p.id]) continue;
    const models = p.models.map((m) => m.id);
    out.push({ key: p.id, label: `${p.label} · ${p.baseUrl}`, provider: p.id, baseUrl: p.baseUrl, model: models[0] ?? '', models });
  }
  return out;
}

function FieldError({ errors, field }: { readonly errors: readonly PlaygroundFieldError[]; readonly field: PlaygroundFieldError['field'] }): ReactNode {
  const error = errors.find((e) => e.field === field);
  if (!error) return null;
  return (
    <div className="error-text playground-error" data-testid={`playground-error-${field}`} role="alert">
      {error.message}
    </div>
  );
}

function RunView({ run }: { readonly run: PlaygroundRun }): ReactNode {
  return (
    <div data-testid="playground-response" data-status={run.status} aria-live="polite" tabIndex={-1}>
      <div className="muted">
        {run.route.model} · {run.status === 'running' ? 'streaming…' : `${run.finish ?? run.status}${run.durationMs !== undefined ? ` in ${formatDuration(run.durationMs)}` : ''}`}
        {run.usage ? ` · ${run.usage.inputTokens + (run.usage.cacheReadTokens ?? 0)} in / ${run.usage.outputTokens} out` : ''}
      </div>
      {run.failure && (
        <div className="error-text" data-testid="playground-response-failure">
          {run.failure.code}: {run.failure.message}
        </div>
      )}
      {run.reasoning !== undefined && (
        <details>
          <summary>thinking</summary>
          <pre className="plain wrap">{run.reasoning}</pre>
        </details>
      )}
      <pre tabIndex={0} className="plain wrap" data-testid="playground-response-text">
        {run.text}
      </pre>
      {run.toolCalls.length > 0 && (
        <ul className="response-tool-calls">
          {run.toolCalls.map((c, i) => (
            <li key={i}>
              <b className="mono">{c.name}</b> <code className="clip">{c.arguments}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Editor({
  id,
  label,
  value,
  onChange,
  rows,
  errors,
}: {
  readonly id: 'system' | 'messages' | 'tools' | 'params';
  readonly label: string;
  readonly value: string;
  readonly onChange: (v: string) => void;
  readonly rows: number;
  readonly errors: readonly PlaygroundFieldError[];
}): ReactNode {
  const invalid = errors.some((e) => e.field === id);
  return (
    <label className="playground-field">
      <span className="section-label">{label}</span>
      <textarea
        className={`mono playground-text${invalid ? ' invalid' : ''}`}
        data-testid={`playground-${id}`}
        aria-invalid={invalid}
        spellCheck={false}
        rows={rows}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <FieldError errors={errors} field={id} />
    </label>
  );
}

/** The "Edit and send" tab for one logged request (mount it keyed by the request). */
export function RequestPlayground({ inspection, sessionId }: { readonly inspection: RequestInspection; readonly sessionId: string }): ReactNode {
  const client = useClient();
  const runtime = useRuntime();
  const index = inspection.request.index;
  const initial = useMemo(
    () =>
      playgroundEditOf({
        ...(inspection.header?.system !== undefined ? { system: inspection.header.system } : {}),
        messages: inspection.messages,
        ...(Array.isArray(inspection.header?.tools) ? { tools: inspection.header.tools } : {}),
        ...(inspection.header ? { config: inspection.header.config } : {}),
      }),
    [inspection],
  );
  const [edit, setEdit] = useState<PlaygroundEdit>(initial);
  const checked = useMemo(() => checkPlaygroundEdit(edit), [edit]);
  const errors = checked.ok ? [] : checked.errors;
  const prompt = checked.ok ? editedPrompt(inspection.messages, checked.value.messages) : undefined;
  const [choices, setChoices] = useState<RouteChoice[] | undefined>();
  const [choiceKey, setChoiceKey] = useState('active');
  const [model, setModel] = useState('');
  const [runs, setRuns] = useState<readonly PlaygroundRun[]>([]);
  const [shown, setShown] = useState<PlaygroundRun | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [forking, setForking] = useState(false);
  const pushed = useRef(new Map<string, PlaygroundRun>());
  const current = useRef<string | undefined>(undefined);

  useEffect(() => {
    let active = true;
    client.getSettings({}).then(
      (settings) => {
        if (!active) return;
        const list = routeChoices(settings);
        setChoices(list);
        setModel(list[0]?.model ?? '');
      },
      (error: unknown) => active && setProblem(describeError(error)),
    );
    return () => {
      active = false;
    };
  }, [client]);

  const refreshRuns = useMemo(
    () => () =>
      client.listPlaygroundRuns({ sessionId, index }).then(
        (list) => setRuns(list),
        (error: unknown) => setProblem(describeError(error)),
      ),
    [client, sessionId, index],
  );
  useEffect(() => void refreshRuns(), [refreshRuns]);

  useEffect(
    () =>
      client.onPush((push) => {
        if (push.kind !== 'playground/run') return;
        pushed.current.set(push.run.id, push.run);
        if (push.run.id !== current.current) return;
        setShown(push.run);
        if (push.run.status !== 'running') {
          void refreshRuns();
          void loadPlaygroundRuns(client, sessionId, true);
        }
      }),
    [client, refreshRuns, sessionId],
  );

  const choice = choices?.find((c) => c.key === choiceKey);
  const running = shown?.status === 'running';
  const send = async (from: Element): Promise<void> => {
    if (!checked.ok || !choice || model.trim() === '') return;
    setProblem(undefined);
    // Send is off while the run streams: the response beside the logged answer takes focus (and scrolls into view).
    focusAfterRender(byTestId('playground-response'), { from });
    try {
      const run = await client.startPlaygroundRun({ sessionId, index, route: { provider: choice.provider, baseUrl: choice.baseUrl, model: model.trim() }, edit });
      current.current = run.id;
      // A push may have overtaken the answer.
      setShown(pushed.current.get(run.id) ?? run);
    } catch (error) {
      setProblem(describeError(error));
    }
  };
  const fork = async (): Promise<void> => {
    if (!prompt) return;
    setForking(true);
    try {
      const child = await client.forkWithPrompt({ sessionId, messageId: prompt.messageId, text: prompt.text });
      await runtime.refreshSessions();
      runtime.app.getState().select(child.id, { focusSession: true });
    } catch (error) {
      setProblem(describeError(error));
      setForking(false);
      focusAfterRender(byTestId('playground-fork'));
    }
  };

  const answer = inspection.answer;
  return (
    <div className="playground" data-testid="playground">
      <p className="muted small-note">
        Edit any part of this request and send it to a provider. Runs are kept as scratch records of {inspection.request.label}, beside the session’s log — never in it.
      </p>
      <Editor id="system" label="system prompt" rows={4} value={edit.system ?? ''} onChange={(system) => setEdit((e) => ({ ...e, system }))} errors={errors} />
      <Editor id="messages" label="messages (JSON)" rows={12} value={edit.messages} onChange={(messages) => setEdit((e) => ({ ...e, messages }))} errors={errors} />
      <Editor id="tools" label="tools (JSON)" rows={5} value={edit.tools} onChange={(tools) => setEdit((e) => ({ ...e, tools }))} errors={errors} />
      <Editor id="params" label="parameters (JSON: temperature, maxTokens, reasoningEffort)" rows={3} value={edit.params} onChange={(params) => setEdit((e) => ({ ...e, params }))} errors={errors} />
      <div className="playground-route">
        <label className="playground-field">
          <span className="section-label">provider</span>
          <select
            data-testid="playground-provider"
            value={choiceKey}
            disabled={!choices}
            onChange={(e) => {
              const next = choices?.find((c) => c.key === e.target.value);
              setChoiceKey(e.target.value);
              if (next) setModel(next.model);
            }}
          >
            {(choices ?? []).map((c) => (
              <option key={c.key} value={c.key}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label className="playground-field">
          <span className="section-label">model</span>
          <input className="mono" data-testid="playground-model" list="playground-models" value={model} onChange={(e) => setModel(e.target.value)} />
          <datalist id="playground-models">
            {[...new Set(choice?.models ?? [])].map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
      </div>
      <div className="request-actions">
        <button type="button" className="primary small" data-testid="playground-send" disabled={!checked.ok || !choice || model.trim() === '' || running} onClick={(e) => void send(e.currentTarget)}>
          {running ? 'Streaming…' : 'Send'}
        </button>
        {running && (
          <button type="button" className="small" data-testid="playground-cancel" onClick={() => void client.cancelPlaygroundRun({ runId: shown.id })}>
            Stop
          </button>
        )}
        <button type="button" className="small" data-testid="playground-reset" onClick={() => setEdit(initial)}>
          Reset to the logged request
        </button>
        <span className="spacer" />
        <button
          type="button"
          className="small"
          data-testid="playground-fork"
          disabled={!prompt || forking}
          title={prompt ? 'A fork before this prompt’s turn, with the edited prompt sent in it' : 'Edit one of your prompts in the messages to fork with it'}
          onClick={() => void fork()}
        >
          {forking ? 'Forking…' : 'Fork with this prompt'}
        </button>
      </div>
      {problem && (
        <div className="error-text" data-testid="playground-problem" role="alert">
          {problem}
        </div>
      )}
      <div className="replay-sides playground-sides">
        <div className="replay-side" data-testid="playground-original">
          <div className="section-label">logged answer</div>
          {answer ? (
            <>
              <pre tabIndex={0} className="plain wrap" data-testid="playground-original-text">
                {answer.text}
              </pre>
              {answer.toolCalls.length > 0 && (
                <ul className="response-tool-calls">
                  {answer.toolCalls.map((c, i) => (
                    <li key={i}>
                      <b className="mono">{c.name}</b> <code className="clip">{c.arguments}</code>
                    </li>
                  ))}
                </ul>
              )}
            </>
          ) : (
            <div className="muted">No answer is logged for this request.</div>
          )}
        </div>
        <div className="replay-side">
          <div className="section-label">this run</div>
          {shown ? <RunView run={shown} /> : <div className="muted">Send to see the response here.</div>}
        </div>
      </div>
      <div className="section-label">
        playground runs of {inspection.request.label} ({runs.length})
      </div>
      {runs.length === 0 ? (
        <div className="muted" data-testid="playground-runs-none">
          None yet.
        </div>
      ) : (
        <ul className="diff-list" data-testid="playground-runs">
          {runs.map((r) => (
            <li key={r.id}>
              <button type="button" className="link-button playground-run" data-testid="playground-run" data-status={r.status} aria-pressed={shown?.id === r.id} onClick={() => setShown(r)}>
                <span className="mono">{isoTime(r.createdAt)}</span> {r.route.model} · {r.finish ?? r.status} · <span className="clip">{r.text.slice(0, 80) || '(no text)'}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
