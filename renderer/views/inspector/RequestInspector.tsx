/**
 * Size: over 500 lines because its four tabs share one loaded request and its show-more state;
 * splitting the tabs into their own files is the next step when one of them grows.
 *
 * The request inspector: one model request of the session, rebuilt by the host from the log
 * (`inspectRequest`), in four tabs —
 * - Request: method and URL, headers (API key redacted), the exact JSON body (pretty or as sent),
 *   copy as JSON / as a curl command (the key read from an environment variable);
 * - Messages: what the model was given, rendered (Markdown) or raw;
 * - Response: finish reason, usage (input / cached / output / reasoning), time to first token,
 *   duration, the answer (text, thinking, tool calls), and the raw stream (logged chunks, runs
 *   folded) on demand;
 * - Diff: against the previous step request (not a compaction's summary request), saying which —
 *   what was appended, what changed, and whether the cached prefix held; after "Replay on this
 *   build", the divergent request also shows the logged and the replayed body side by side
 *   (replay/ReplayViews.tsx);
 * - Edit and send: the request playground (playground/RequestPlayground.tsx).
 * An imported step has no wire request (its log recorded none): the Request tab says so plainly.
 * Previous / next walk every request of the session (retries and compaction summaries included).
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { RequestInspection } from '../../../shared/api.js';
import type { SessionEvent } from '../../../shared/events.js';
import { formatDuration, formatTokens, isoTime } from '../../../shared/format.js';
import type { WireMessageSummary } from '../../../shared/request-diff.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import type { RequestTarget } from '../../state/app-store.js';
import { CopyButton } from '../common/CopyButton.js';
import { useApp, useClient, useSession, useTimeline } from '../context.js';
import { formatUsd, usageCost } from '../../../shared/pricing.js';
import type { StepRow } from '../../../shared/timeline.js';
import { MessageCard, toolNamesOf } from '../messages/MessageCard.js';
import { EventList } from './EventList.js';
import { useStore } from 'zustand';
import { replayStore } from '../../state/replay-store.js';
import { ReplayRequestCompare } from '../replay/ReplayViews.js';
import { RequestPlayground } from '../playground/RequestPlayground.js';

type Tab = 'request' | 'messages' | 'response' | 'diff' | 'playground';
const TABS: readonly { readonly id: Tab; readonly label: string }[] = [
  { id: 'request', label: 'Request' },
  { id: 'messages', label: 'Messages' },
  { id: 'response', label: 'Response' },
  { id: 'diff', label: 'Diff' },
  { id: 'playground', label: 'Edit and send' },
];

/** Bodies larger than this show their first part until asked (a 10 MB pretty-print would stall the page). */
const BODY_PREVIEW_CHARS = 200_000;

function targetKey(target: RequestTarget): string {
  return 'index' in target ? `#${target.index}` : `${target.turn}.${target.step}${target.attempt !== undefined ? `/${target.attempt}` : ''}`;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text) as unknown, null, 2);
  } catch {
    return text;
  }
}

function BodyView({ body }: { readonly body: string }): ReactNode {
  const [mode, setMode] = useState<'pretty' | 'raw'>('pretty');
  const [all, setAll] = useState(body.length <= BODY_PREVIEW_CHARS);
  const bodyRef = useRef<HTMLPreElement>(null);
  const text = useMemo(() => {
    const shown = mode === 'pretty' ? prettyJson(body) : body;
    return all ? shown : shown.slice(0, BODY_PREVIEW_CHARS);
  }, [body, mode, all]);
  return (
    <div className="request-body">
      <div className="request-body-head">
        <span className="section-label">body</span>
        <span className="segmented" role="group" aria-label="Body format">
          <button type="button" className={mode === 'pretty' ? 'active' : ''} aria-pressed={mode === 'pretty'} data-testid="request-body-pretty" onClick={() => setMode('pretty')}>
            pretty
          </button>
          <button type="button" className={mode === 'raw' ? 'active' : ''} aria-pressed={mode === 'raw'} data-testid="request-body-raw" onClick={() => setMode('raw')}>
            as sent
          </button>
        </span>
      </div>
      <pre ref={bodyRef} tabIndex={0} className={`json request-body-text${mode === 'raw' ? ' wrap' : ''}`} data-testid="request-body">
        {text}
      </pre>
      {!all && (
        <button
          type="button"
          className="link-button"
          data-testid="request-body-show-all"
          onClick={(e) => {
            setAll(true);
            // The button goes away: the whole body takes focus.
            focusAfterRender(() => bodyRef.current, { from: e.currentTarget });
          }}
        >
          show the whole body ({formatTokens(body.length)} characters)
        </button>
      )}
    </div>
  );
}

function RequestTab({ inspection }: { readonly inspection: RequestInspection }): ReactNode {
  const { wire, wireError, header } = inspection;
  // With no key set for the provider the client sends a placeholder, not a key: say so rather than "<redacted>".
  const provider = header?.config.provider;
  const noKey = useApp((s) => provider !== undefined && s.settings !== undefined && s.settings.keys[provider] !== true);
  // Sanitised imported logs may hold a placeholder string instead of the tool list.
  const tools = Array.isArray(header?.tools) ? header.tools : [];
  const body = useMemo(() => {
    try {
      return wire ? (JSON.parse(wire.body) as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }, [wire]);
  if (!wire && wireError?.code === 'REQUEST_NOT_RECORDED') {
    // An imported log: not an error of ours or of the log, just not something it holds.
    return (
      <div className="request-not-recorded" data-testid="request-not-recorded">
        <p>
          <b>No wire request was recorded for this step.</b> {wireError.message.charAt(0).toUpperCase()}
          {wireError.message.slice(1)}
        </p>
      </div>
    );
  }
  if (!wire) {
    return (
      <div className="error-text" data-testid="request-wire-error">
        The request body cannot be rebuilt from this log: {wireError?.message} {wireError ? `[${wireError.code}]` : ''}
      </div>
    );
  }
  const params = body ? Object.entries(body).filter(([k]) => k !== 'messages' && k !== 'tools') : [];
  return (
    <div data-testid="request-wire">
      <div className="request-line mono" data-testid="request-url">
        <b>{wire.method}</b> {wire.url ?? <span className="muted">(endpoint not recorded in this log)</span>}
      </div>
      <div className="request-actions">
        <CopyButton testId="copy-request-json" label="Copy JSON" title="Copy the exact request body" text={() => wire.body} />
        <CopyButton testId="copy-request-curl" label="Copy as curl" title="Copy a curl command that sends this request (the key comes from an environment variable)" text={() => wire.curl} />
        <span className="muted">{formatTokens(wire.bodyBytes)} bytes</span>
      </div>
      <table className="kv-table" data-testid="request-headers">
        <tbody>
          {wire.headers.map((h) =>
            h.name === 'Authorization' && noKey ? (
              <tr key={h.name} data-testid="request-no-key">
                <th>{h.name}</th>
                <td className="request-no-key">
                  No API key was sent: none is set for this provider. <span className="muted">(The header carries the placeholder “not-needed”.)</span>
                </td>
              </tr>
            ) : (
              <tr key={h.name} data-redacted={h.redacted ? 'true' : undefined}>
                <th>{h.name}</th>
                <td className="mono">
                  {h.value}
                  {h.redacted && <span className="badge badge-muted">redacted</span>}
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
      <table className="kv-table" data-testid="request-params">
        <tbody>
          {params.map(([k, v]) => (
            <tr key={k}>
              <th>{k}</th>
              <td className="mono">{JSON.stringify(v)}</td>
            </tr>
          ))}
          <tr>
            <th>messages</th>
            <td className="mono">{Array.isArray(body?.['messages']) ? (body['messages'] as unknown[]).length : 0}</td>
          </tr>
          <tr>
            <th>tools</th>
            <td className="mono">{Array.isArray(body?.['tools']) ? (body['tools'] as unknown[]).length : 0}</td>
          </tr>
        </tbody>
      </table>
      {header?.system !== undefined && (
        <details className="request-system" data-testid="request-system">
          <summary>system prompt ({formatTokens(header.system.length)} chars)</summary>
          <pre tabIndex={0} className="plain">
            {header.system}
          </pre>
        </details>
      )}
      {tools.length > 0 && (
        <details className="request-tools" data-testid="request-tools">
          <summary>tools ({tools.length})</summary>
          {tools.map((tool) => (
            <details key={tool.name} className="request-tool" data-testid="request-tool" data-name={tool.name}>
              <summary>
                <b className="mono">{tool.name}</b> <span className="muted">{tool.description}</span>
              </summary>
              <pre tabIndex={0} className="json">
                {JSON.stringify(tool.parameters, null, 2)}
              </pre>
            </details>
          ))}
        </details>
      )}
      <BodyView body={wire.body} />
    </div>
  );
}

function MessagesTab({ inspection }: { readonly inspection: RequestInspection }): ReactNode {
  const [markdown, setMarkdown] = useState(true);
  const names = useMemo(() => toolNamesOf(inspection.messages), [inspection.messages]);
  const hasSystem = inspection.header?.system !== undefined && inspection.header.system !== '';
  return (
    <div data-testid="request-messages">
      <div className="request-actions">
        <span className="muted">
          {inspection.messages.length} message{inspection.messages.length === 1 ? '' : 's'}
          {hasSystem ? ' after the system prompt' : ''}
        </span>
        <span className="spacer" />
        <label className="toggle-label">
          <input type="checkbox" data-testid="request-messages-markdown" checked={markdown} onChange={() => setMarkdown((m) => !m)} /> render Markdown
        </label>
      </div>
      {inspection.messages.map((m, i) => (
        <MessageCard key={i} message={m} index={i + (hasSystem ? 1 : 0)} toolNames={names} markdown={markdown} />
      ))}
    </div>
  );
}

function RawStream({ sessionId, index }: { readonly sessionId: string; readonly index: number }): ReactNode {
  const client = useClient();
  const [state, setState] = useState<{ events?: readonly SessionEvent[]; total?: number; error?: string; loading: boolean }>({ loading: false });
  // The button gives way to the loading line, then the stream (or the error and the button again):
  // this area, which stays, holds focus meanwhile.
  const areaRef = useRef<HTMLDivElement>(null);
  return (
    <div ref={areaRef} className="request-stream-area" data-testid="request-stream-area" tabIndex={-1} aria-busy={state.loading}>
      {!state.events && !state.loading && (
        <button
          type="button"
          className="small"
          data-testid="request-show-stream"
          onClick={(e) => {
            setState({ loading: true });
            focusAfterRender(() => areaRef.current, { from: e.currentTarget });
            client.readRequestStream({ sessionId, index }).then(
              (r) => setState({ events: r.events, total: r.total, loading: false }),
              (error: unknown) => setState({ error: describeError(error), loading: false }),
            );
          }}
        >
          Show raw stream
        </button>
      )}
      {state.loading && <div className="muted">Loading the stream…</div>}
      {state.error && <div className="error-text">{state.error}</div>}
      {state.events && (
        <div data-testid="request-stream">
          <div className="muted">
            {state.total} logged chunk{state.total === 1 ? '' : 's'}
            {state.total !== state.events.length ? ` (first ${state.events.length} shown)` : ''}
          </div>
          {state.events.length === 0 ? <div className="muted">No chunks are logged for this request (compaction summaries log only their outcome).</div> : <EventList events={state.events} />}
        </div>
      )}
    </div>
  );
}

/** What the model answered: its text, thinking (folded) and tool calls, as the log holds them. */
function AnswerView({ inspection }: { readonly inspection: RequestInspection }): ReactNode {
  const answer = inspection.answer;
  if (!answer) {
    return (
      <div className="muted" data-testid="response-answer-none">
        {inspection.request.response.finish === undefined ? 'No answer logged yet.' : 'The log holds no answer text for this request.'}
      </div>
    );
  }
  const from = answer.from === 'stream' ? ' (what streamed before the attempt ended)' : answer.from === 'summary' ? ' (the summary)' : '';
  return (
    <div className="response-answer" data-testid="response-answer" data-from={answer.from}>
      <div className="section-label">answer{from}</div>
      {answer.reasoning !== undefined && (
        <details className="response-reasoning" data-testid="response-answer-reasoning">
          <summary>thinking ({formatTokens(answer.reasoning.length)} chars)</summary>
          <pre tabIndex={0} className="plain wrap">
            {answer.reasoning}
          </pre>
        </details>
      )}
      {answer.text !== '' ? (
        <pre tabIndex={0} className="plain wrap response-answer-text" data-testid="response-answer-text">
          {answer.text}
        </pre>
      ) : (
        answer.toolCalls.length === 0 && <div className="muted">(no text)</div>
      )}
      {answer.toolCalls.length > 0 && (
        <ul className="response-tool-calls" data-testid="response-answer-tools">
          {answer.toolCalls.map((call, i) => (
            <li key={i}>
              <b className="mono">{call.name}</b> <code className="clip">{call.arguments}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ResponseTab({ inspection, sessionId }: { readonly inspection: RequestInspection; readonly sessionId: string }): ReactNode {
  const r = inspection.request.response;
  const u = r.usage;
  const prompt = u ? u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) : undefined;
  const tone = r.finish === 'stop' || r.finish === 'tool-calls' ? 'ok' : r.finish === undefined ? 'muted' : r.finish === 'max-tokens' ? 'warn' : 'bad';
  // The price logged for this step's request (the step row holds it).
  const ref = inspection.request.ref;
  const timeline = useTimeline();
  const price = ref.kind === 'step' ? timeline.rows.find((row): row is StepRow => row.kind === 'step' && row.turn === ref.turn && row.step === ref.step)?.price : undefined;
  const cost = price?.kind === 'known' && u ? usageCost(u, price) : undefined;
  return (
    <div data-testid="request-response">
      <div className="response-finish">
        <span className={`badge badge-${tone}`} data-testid="response-finish">
          {r.finish ?? 'no finish logged'}
        </span>
        {r.failure && (
          <span className="error-text" data-testid="response-failure">
            {r.failure.code}
            {r.failure.status !== undefined ? ` (HTTP ${r.failure.status})` : ''}: {r.failure.message}
          </span>
        )}
      </div>
      <table className="kv-table" data-testid="response-facts">
        <tbody>
          <tr>
            <th>cost</th>
            <td
              className="mono"
              data-testid="response-cost"
              title={price?.kind === 'known' ? `priced with ${price.snapshot} (${price.source}: ${price.priceId})` : price?.kind === 'unknown' ? price.reason : 'no price was logged for this request'}
            >
              {cost ? formatUsd(cost.usd) : u ? 'price unknown' : '—'}
              {cost && (
                <span className="muted">
                  {' '}
                  (input {formatUsd(cost.input)} · cached {formatUsd(cost.cacheRead)}
                  {cost.cacheWrite > 0 ? ` · cache write ${formatUsd(cost.cacheWrite)}` : ''} · output {formatUsd(cost.output)}
                  {cost.reasoning > 0 ? ` · reasoning ${formatUsd(cost.reasoning)}` : ''})
                </span>
              )}
            </td>
          </tr>
          <tr>
            <th title="total input: uncached + cache read + cache write">input (total)</th>
            <td className="mono" data-testid="response-input">
              {u ? `${formatTokens(prompt)} tokens` : '—'}
              {u && <span className="muted"> ({formatTokens(u.inputTokens)} uncached)</span>}
            </td>
          </tr>
          <tr>
            <th title="the part of the input read from the provider's cache">of it cached</th>
            <td className="mono" data-testid="response-cached">
              {u ? formatTokens(u.cacheReadTokens ?? 0) : '—'}
              {u && prompt ? <span className="muted"> ({Math.round(((u.cacheReadTokens ?? 0) / prompt) * 100)}% of input)</span> : null}
            </td>
          </tr>
          <tr>
            <th title="output tokens, reasoning included">output (total)</th>
            <td className="mono" data-testid="response-output">
              {u ? formatTokens(u.outputTokens) : '—'}
            </td>
          </tr>
          <tr>
            <th title="the part of the output spent on reasoning">of it reasoning</th>
            <td className="mono" data-testid="response-reasoning">
              {u?.reasoningTokens !== undefined ? formatTokens(u.reasoningTokens) : '—'}
            </td>
          </tr>
          <tr>
            <th title="time to first token">TTFT</th>
            <td className="mono" data-testid="response-ttft">
              {r.ttftMs !== undefined ? formatDuration(r.ttftMs) : '—'}
            </td>
          </tr>
          <tr>
            <th>duration</th>
            <td className="mono" data-testid="response-duration">
              {r.durationMs !== undefined ? formatDuration(r.durationMs) : '—'}
            </td>
          </tr>
          <tr>
            <th>started</th>
            <td className="mono">{isoTime(r.startedAt)}</td>
          </tr>
          <tr>
            <th>chunks</th>
            <td className="mono">
              {r.chunkCount}
              {r.firstChunkSeq !== undefined ? (
                <span className="muted">
                  {' '}
                  (#{r.firstChunkSeq}–#{r.lastChunkSeq})
                </span>
              ) : null}
            </td>
          </tr>
        </tbody>
      </table>
      <AnswerView inspection={inspection} />
      <div className="muted small-note">Timings are from event times in the log (the request is taken to start at the last event logged before its first chunk).</div>
      {!inspection.request.answerOnly && <RawStream key={inspection.request.index} sessionId={sessionId} index={inspection.request.index} />}
    </div>
  );
}

function MessageLine({ m, tone }: { readonly m: WireMessageSummary; readonly tone: string }): ReactNode {
  return (
    <li className={`diff-message tone-${tone}`} data-testid="diff-message" data-role={m.role}>
      <span className="mono muted">#{m.index}</span> <b>{m.role}</b> <span className="muted">{formatTokens(m.bytes)} B</span>{' '}
      <span className="clip">{m.preview || <i className="muted">(empty)</i>}</span>
    </li>
  );
}

function DiffTab({ inspection, go }: { readonly inspection: RequestInspection; readonly go: (index: number) => void }): ReactNode {
  return (
    <>
      <ReplayRequestCompare inspection={inspection} />
      <PreviousDiff inspection={inspection} go={go} />
    </>
  );
}

function PreviousDiff({ inspection, go }: { readonly inspection: RequestInspection; readonly go: (index: number) => void }): ReactNode {
  const diff = inspection.diff;
  if (!diff) {
    const why =
      inspection.wireError?.code === 'REQUEST_NOT_RECORDED'
        ? 'The source log recorded no requests, so there is nothing to compare. The Messages tab shows what the model had been given by this step.'
        : inspection.request.index === 0
          ? 'This is the session’s first request.'
          : !inspection.wire
            ? 'This request could not be rebuilt, so there is nothing to compare.'
            : 'There is no earlier step request to compare with, or it could not be rebuilt.';
    return (
      <div className="muted" data-testid="request-diff-none">
        {why}
      </div>
    );
  }
  const cached = inspection.request.response.usage?.cacheReadTokens;
  return (
    <div data-testid="request-diff">
      <div className="request-actions">
        <span>against</span>
        <button type="button" className="link-button" data-testid="diff-previous" onClick={() => go(diff.previous.index)}>
          {diff.previous.label}
        </button>
        <span className="muted">
          ({diff.previousMessages} → {diff.messages} messages)
        </span>
      </div>
      {diff.basis !== undefined && (
        <div className="muted" data-testid="diff-basis">
          Compared with {diff.basis}.
        </div>
      )}
      <div className={`prefix-verdict ${diff.prefixHeld ? 'ok' : 'bad'}`} data-testid="diff-prefix" data-held={diff.prefixHeld ? 'true' : 'false'}>
        {diff.prefixHeld ? '✓ The previous request is an exact prefix of this one: the provider’s prompt cache could hold.' : `✗ Cached prefix broken: ${diff.prefixBrokenBy}.`}
        {cached !== undefined && <span className="muted"> The provider reported {formatTokens(cached)} cached input tokens.</span>}
      </div>
      {diff.envelopeChanges.length > 0 && (
        <div data-testid="diff-envelope">
          <span className="section-label">changed fields</span> <span className="mono">{diff.envelopeChanges.join(', ')}</span>
        </div>
      )}
      <div className="section-label">
        unchanged: {diff.commonPrefix} leading message{diff.commonPrefix === 1 ? '' : 's'}
      </div>
      {diff.appended.length > 0 && (
        <>
          <div className="section-label">appended ({diff.appended.length})</div>
          <ul className="diff-list" data-testid="diff-appended">
            {diff.appended.map((m) => (
              <MessageLine key={m.index} m={m} tone="add" />
            ))}
          </ul>
        </>
      )}
      {diff.changed.length > 0 && (
        <>
          <div className="section-label">changed ({diff.changed.length})</div>
          <ul className="diff-list" data-testid="diff-changed">
            {diff.changed.map((c) => (
              <li key={c.index} className="diff-changed">
                <ul className="diff-list">
                  <MessageLine m={c.before} tone="del" />
                  <MessageLine m={c.after} tone="add" />
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
      {diff.removed.length > 0 && (
        <>
          <div className="section-label">removed ({diff.removed.length})</div>
          <ul className="diff-list" data-testid="diff-removed">
            {diff.removed.map((m) => (
              <MessageLine key={m.index} m={m} tone="del" />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

export function RequestInspector(): ReactNode {
  const target = useApp((s) => s.requestTarget);
  const setTarget = useApp((s) => s.inspectRequest);
  const sessionId = useSession((s) => s.sessionId);
  const lastSeq = useSession((s) => s.lastSeq);
  const client = useClient();
  const [tab, setTab] = useState<Tab>('request');
  // A view asked for a tab (the replay banner's "compare", the palette's "Edit and send").
  const tabRequest = useStore(replayStore, (s) => s.tabRequest);
  useEffect(() => {
    if (!tabRequest) return;
    setTab(tabRequest.tab);
    // Taken: an inspector opened later starts on its usual tab.
    replayStore.setState({ tabRequest: undefined });
  }, [tabRequest]);
  const [state, setState] = useState<{ key: string; inspection?: RequestInspection; error?: string } | undefined>();
  const key = target ? `${sessionId}:${targetKey(target)}` : '';
  // A request still streaming changes as events arrive; a finished one never does.
  const live = state?.inspection && state.inspection.request.response.finish === undefined ? lastSeq : -1;
  useEffect(() => {
    if (!target) return;
    let active = true;
    client.inspectRequest({ sessionId, ...target }).then(
      (inspection) => active && setState({ key, inspection }),
      (error: unknown) => active && setState({ key, error: describeError(error) }),
    );
    return () => {
      active = false;
    };
  }, [client, key, sessionId, target, live]);
  if (!target) return null;
  const current = state?.key === key ? state : undefined;
  const inspection = current?.inspection;
  const go = (index: number): void => setTarget({ index });
  return (
    <aside className="side-panel wide request-inspector" data-testid="request-inspector" aria-label="Request inspector">
      <header className="panel-head">
        <span className="panel-title">Request</span>
        <span className="mono" data-testid="request-label">
          {inspection?.request.label ?? targetKey(target)}
        </span>
        <span className="spacer" />
        {inspection && (
          <span className="request-nav">
            <button
              type="button"
              className="icon-button"
              data-testid="request-prev"
              aria-label="Previous request"
              disabled={inspection.request.index === 0}
              onClick={() => {
                go(inspection.request.index - 1);
                // Disabled at the first request: the other way takes focus.
                focusAfterRender(byTestId('request-prev', 'request-next'));
              }}
            >
              ‹
            </button>
            <span className="muted mono" data-testid="request-position">
              {inspection.request.index + 1}/{inspection.requestCount}
            </span>
            <button
              type="button"
              className="icon-button"
              data-testid="request-next"
              aria-label="Next request"
              disabled={inspection.request.index + 1 >= inspection.requestCount}
              onClick={() => {
                go(inspection.request.index + 1);
                focusAfterRender(byTestId('request-next', 'request-prev'));
              }}
            >
              ›
            </button>
          </span>
        )}
        <button type="button" className="icon-button" data-testid="request-inspector-close" aria-label="Close" onClick={() => setTarget(undefined)}>
          ✕
        </button>
      </header>
      <div
        className="tabs panel-tabs"
        role="tablist"
        aria-label="Request inspector sections"
        onKeyDown={(e) => {
          // A tab list's keys (WAI-ARIA tabs): ← → move to the previous / next tab, Home / End to the first / last.
          const i = TABS.findIndex((t) => t.id === tab);
          const to =
            e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : undefined;
          if (to === undefined) return;
          e.preventDefault();
          const next = TABS[to]!.id;
          setTab(next);
          focusAfterRender(byTestId(`request-tab-${next}`), { from: e.currentTarget });
        }}
      >
        {TABS.map((t) => (
          <button key={t.id} type="button" role="tab" aria-selected={tab === t.id} className={tab === t.id ? 'active' : ''} data-testid={`request-tab-${t.id}`} onClick={() => setTab(t.id)}>
            {t.label}
            {t.id === 'diff' && inspection?.diff && !inspection.diff.prefixHeld ? <span className="tab-dot bad" title="cached prefix broken" /> : null}
          </button>
        ))}
      </div>
      <div className={`panel-body${tab === 'playground' && inspection ? ' panel-body-fill' : ''}`}>
        {!current ? (
          <div className="muted" data-testid="request-loading">
            Rebuilding the request from the log…
          </div>
        ) : current.error ? (
          <div className="error-text" data-testid="request-error">
            {current.error}
          </div>
        ) : inspection ? (
          <>
            {tab === 'request' && <RequestTab inspection={inspection} />}
            {tab === 'messages' && <MessagesTab inspection={inspection} />}
            {tab === 'response' && <ResponseTab inspection={inspection} sessionId={sessionId} />}
            {tab === 'diff' && <DiffTab inspection={inspection} go={go} />}
            {tab === 'playground' && <RequestPlayground key={`${sessionId}:${inspection.request.index}`} inspection={inspection} sessionId={sessionId} />}
            {inspection.notes.length > 0 && (
              <ul className="request-notes" data-testid="request-notes">
                {inspection.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            )}
          </>
        ) : null}
      </div>
    </aside>
  );
}
