/**
 * The request playground (issue 23, item 5), the request inspector's "Edit and send" tab: the
 * logged request as editable fields (system prompt; the messages one by one under the role the
 * provider receives them with — MessagesEditor.tsx; tools and parameters as JSON, checked as you
 * type with the error under the field), a provider and model among the configured ones, Send /
 * Stop — the response streams beside the logged answer — and the scratch runs of this step, kept
 * by the host beside the log (never in it). "Fork with this prompt" turns an edited typed prompt
 * into a real branch: a fork before that prompt's turn, with the edited prompt sent in it; what
 * else was edited is not carried into the fork, and the tab says so (a one-line note that unfolds
 * to the whole explanation).
 *
 * Layout: the route and the Send / Stop / Fork controls stay at the top, the request being edited
 * and the responses scroll in two panes of their own below them (side by side in a wide panel,
 * stacked in a narrow one), so at 1000×700 nothing needs hunting for.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Message } from '../../../shared/messages.js';
import type { RequestInspection, SettingsView } from '../../../shared/api.js';
import { formatDuration, isoTime } from '../../../shared/format.js';
import { checkPlaygroundEdit, editedPrompt, playgroundEditOf, type PlaygroundEdit, type PlaygroundFieldError, type PlaygroundRoute, type PlaygroundRun } from '../../../shared/playground.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { loadPlaygroundRuns } from '../../state/playground-runs.js';
import { useClient, useRuntime } from '../context.js';
import { MessagesEditor } from './MessagesEditor.js';

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

/** How a finished run ended, in words (`aborted` is the person's Stop). */
function statusLabel(run: PlaygroundRun): string {
  if (run.status === 'aborted') return 'stopped by you';
  return run.finish ?? run.status;
}

/** Canonical JSON of an editor text (spacing and indent do not count as an edit); the text itself when it does not parse. */
function canonicalJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

/**
 * What a fork made with the edited prompt does not carry: every other part the person edited, in
 * words (`the system prompt`, `the tools`, …). A fork is the session itself before the prompt's
 * turn, so it runs with the session's own system prompt, tools, parameters, model and history.
 */
function notCarried(
  initial: PlaygroundEdit,
  edit: PlaygroundEdit,
  original: readonly Message[],
  edited: readonly Message[] | undefined,
  promptId: string | undefined,
  routeChanged: boolean,
): string[] {
  const out: string[] = [];
  if ((edit.system ?? '') !== (initial.system ?? '')) out.push('the system prompt');
  if (edited) {
    const before = new Map(original.map((m) => [m.id, JSON.stringify(m)]));
    const others = edited.filter((m) => m.id !== promptId);
    const changed = others.some((m) => before.get(m.id) !== JSON.stringify(m)) || edited.length !== original.length;
    if (changed) out.push('the other messages you edited, added or removed');
  }
  if (canonicalJson(edit.tools) !== canonicalJson(initial.tools)) out.push('the tools');
  if (canonicalJson(edit.params) !== canonicalJson(initial.params)) out.push('the parameters');
  if (routeChanged) out.push('the provider and model picked here');
  return out;
}

function RunView({ run }: { readonly run: PlaygroundRun }): ReactNode {
  return (
    <div data-testid="playground-response" data-status={run.status} aria-live="polite" tabIndex={-1}>
      <div className="muted">
        {run.route.model} · {run.status === 'running' ? 'streaming…' : `${statusLabel(run)}${run.durationMs !== undefined ? ` after ${formatDuration(run.durationMs)}` : ''}`}
        {run.usage ? ` · ${run.usage.inputTokens + (run.usage.cacheReadTokens ?? 0)} in / ${run.usage.outputTokens} out` : ''}
      </div>
      {run.failure && run.status !== 'aborted' && (
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
  const editedMessages = useMemo(() => {
    try {
      return JSON.parse(edit.messages) as Message[];
    } catch {
      return undefined;
    }
  }, [edit.messages]);
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
          // Stop goes away with the run: the response takes focus, from Stop (still there until the
          // next render, so it is named), from Send when the run ended before Stop ever rendered, or
          // from nothing; never from something the person moved to.
          focusAfterRender(byTestId('playground-response'), {
            from: document.querySelector('[data-testid="playground-cancel"]') ?? document.querySelector('[data-testid="playground-send"]'),
            timeoutMs: 30_000,
          });
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
    // Send turns into Stop while the run streams: Stop takes focus (Enter again stops it), the response streams beside the logged answer.
    // (A run that ends before Stop shows leaves focus on nothing: the push handler gives it to the response.)
    focusAfterRender(byTestId('playground-cancel'), { from, timeoutMs: 30_000 });
    try {
      const run = await client.startPlaygroundRun({ sessionId, index, route: { provider: choice.provider, baseUrl: choice.baseUrl, model: model.trim() }, edit });
      current.current = run.id;
      // A push may have overtaken the answer — even the last one, of a run that ended before this
      // answer came (the push handler let it pass, not knowing the run yet): then Stop never showed
      // and Send still has focus; the response takes it, and the list of runs is read again.
      const latest = pushed.current.get(run.id) ?? run;
      setShown(latest);
      if (latest.status !== 'running') {
        focusAfterRender(byTestId('playground-response'), { from, timeoutMs: 30_000 });
        void refreshRuns();
        void loadPlaygroundRuns(client, sessionId, true);
      }
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
  const forkLeaves = prompt ? notCarried(initial, edit, inspection.messages, editedMessages, prompt.messageId, choiceKey !== 'active' || model.trim() !== (choices?.[0]?.model ?? model.trim())) : [];
  return (
    <div className="playground" data-testid="playground">
      <div className="playground-controls">
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
        <div className="request-actions playground-actions">
          {running ? (
            <button
              key="stop"
              type="button"
              className="small"
              data-testid="playground-cancel"
              onClick={(e) => {
                void client.cancelPlaygroundRun({ runId: shown.id });
                // Stop goes away with the run: the stopped response takes focus.
                focusAfterRender(byTestId('playground-response'), { from: e.currentTarget, timeoutMs: 30_000 });
              }}
            >
              Stop
            </button>
          ) : (
            <button
              key="send"
              type="button"
              className="primary small"
              data-testid="playground-send"
              disabled={!checked.ok || !choice || model.trim() === ''}
              title={!checked.ok ? 'Fix the fields marked in red first' : undefined}
              onClick={(e) => void send(e.currentTarget)}
            >
              Send
            </button>
          )}
          <button type="button" className="small" data-testid="playground-reset" onClick={() => setEdit(initial)}>
            Reset
          </button>
          <span className="spacer" />
          <button type="button" className="small" data-testid="playground-fork" disabled={!prompt || forking} aria-describedby="playground-fork-note" onClick={() => void fork()}>
            {forking ? 'Forking…' : 'Fork with this prompt'}
          </button>
        </div>
        {/* One line, folded (at 1000×700 the whole text took five and squeezed the panes below): what matters most
            first — what the fork leaves out, else how to get a fork — the rest when unfolded. */}
        <details className="muted small-note playground-fork-note" id="playground-fork-note" data-testid="playground-fork-note">
          <summary
            className="playground-fork-note-summary"
            data-testid="playground-fork-note-summary"
            title={!prompt ? undefined : forkLeaves.length > 0 ? `Not carried into the fork: ${forkLeaves.join(', ')}.` : undefined}
          >
            {!prompt ? (
              'To fork, edit one of your own prompts in the messages.'
            ) : forkLeaves.length > 0 ? (
              <b data-testid="playground-fork-not-carried">Not carried into the fork: {forkLeaves.join(', ')}.</b>
            ) : (
              'The fork is this session before that prompt’s turn, sent your edited prompt.'
            )}
          </summary>
          {!prompt
            ? '“Fork with this prompt” turns an edited prompt of yours into a real branch: this session before that prompt’s turn, sent the edited prompt.'
            : 'The fork is this session before that prompt’s turn, sent your edited prompt; it keeps the session’s own system prompt, tools, parameters, model and earlier messages.'}
        </details>
        {problem && (
          <div className="error-text" data-testid="playground-problem" role="alert">
            {problem}
          </div>
        )}
      </div>
      <div className="playground-panes">
        <section className="playground-pane playground-edit" data-testid="playground-edit" aria-label="The request to send">
          <p className="muted small-note">Sent as the provider receives a session request. Runs are scratch records of {inspection.request.label}, kept beside the session’s log, never in it.</p>
          <Editor id="system" label="system prompt" rows={3} value={edit.system ?? ''} onChange={(system) => setEdit((e) => ({ ...e, system }))} errors={errors} />
          <div className="playground-field">
            <span className="section-label">messages</span>
            {editedMessages ? <MessagesEditor messages={editedMessages} onChange={(next) => setEdit((e) => ({ ...e, messages: JSON.stringify(next, null, 2) }))} /> : null}
            <FieldError errors={errors} field="messages" />
          </div>
          <Editor id="tools" label="tools (JSON)" rows={4} value={edit.tools} onChange={(tools) => setEdit((e) => ({ ...e, tools }))} errors={errors} />
          <Editor
            id="params"
            label="parameters (JSON: temperature, maxTokens, reasoningEffort)"
            rows={2}
            value={edit.params}
            onChange={(params) => setEdit((e) => ({ ...e, params }))}
            errors={errors}
          />
        </section>
        <section className="playground-pane playground-result" data-testid="playground-result" aria-label="Responses">
          <div className="replay-sides playground-sides">
            <div className="replay-side">
              <div className="section-label">this run</div>
              {shown ? <RunView run={shown} /> : <div className="muted">Send to see the response here.</div>}
            </div>
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
                    <span className="mono">{isoTime(r.createdAt)}</span> {r.route.model} · {statusLabel(r)} · <span className="clip">{r.text.slice(0, 80) || '(no text)'}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
