/**
 * "Replay on this build" in the debugger (issue 23, item 4): the header button that runs it, the
 * banner under the header with the outcome ("diverges at step 2.1: request (path …)" with a link
 * that scrolls to that step and one that opens both requests in the inspector's Diff tab, "replays
 * identically on this build", "not comparable" for an imported log with its tool level), the
 * marker on the divergent step's row, and the logged-vs-this-build comparison the Diff tab shows.
 * The host runs the replay engine (HostApi `replaySession`); these views only show its report.
 */
import { useMemo, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { RequestInspection } from '../../../shared/api.js';
import type { ReplayReport } from '../../../shared/replay.js';
import { diffRequestBodies } from '../../../shared/request-diff.js';
import type { StepRow } from '../../../shared/timeline.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { dismissReplay, replayStore, requestInspectorTab, runReplay, type ReplayState } from '../../state/replay-store.js';
import { useApp, useClient, useSession, useTimeline } from '../context.js';

/** The open session's replay state. */
function useReplayOf(sessionId: string): ReplayState | undefined {
  return useStore(replayStore, (s) => s.bySession[sessionId]);
}

/** The header button: runs the replay (again). */
/** "Replay on this build"; disabled (and says why) while the session has no turn to replay. */
export function ReplayButton({ hasTurns }: { readonly hasTurns: boolean }): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const client = useClient();
  const state = useReplayOf(sessionId);
  const lastSeq = useSession((s) => s.lastSeq);
  const running = state?.phase === 'running';
  return (
    <button
      type="button"
      className="small"
      data-testid="replay-button"
      title={
        hasTurns
          ? "Feed this session's logged model answers to this build and show where it would now act differently (nothing is sent to a provider)"
          : 'Nothing to replay yet: the session has no turns'
      }
      disabled={running || !hasTurns}
      aria-busy={running}
      onClick={(e) => {
        const from = e.currentTarget;
        void runReplay(client, sessionId, describeError, lastSeq).then(() => focusAfterRender(byTestId('replay-banner-focus', 'replay-button'), { from }));
      }}
    >
      {running ? 'Replaying…' : 'Replay on this build'}
    </button>
  );
}

/** Where the divergent (turn, step) is on the timeline: its step row's seq, else the request's own position from the host. */
function useGoToStep(): (turn: number, step: number, index?: number) => void {
  const timeline = useTimeline();
  const scrollTo = useApp((s) => s.scrollTo);
  const client = useClient();
  const sessionId = useSession((s) => s.sessionId);
  return (turn, step, index) => {
    const row = timeline.rows.find((r): r is StepRow => r.kind === 'step' && r.turn === turn && r.step === step);
    if (row) {
      scrollTo(row.seq);
      return;
    }
    const target = index !== undefined ? { index } : { turn, step };
    client.inspectRequest({ sessionId, ...target }).then(
      (inspection) => scrollTo(inspection.atSeq),
      () => undefined,
    );
  };
}

function ToolLine({ report, go }: { readonly report: ReplayReport; readonly go: (turn: number, step: number) => void }): ReactNode {
  const t = report.tools;
  const d = t.divergence;
  if (!d) {
    return (
      <div data-testid="replay-tools" data-diverged="false">
        Tool calls: {t.logged} logged, {t.replayed} made on this build — identical.
      </div>
    );
  }
  const call = d.logged ?? d.replayed!;
  return (
    <div data-testid="replay-tools" data-diverged="true">
      Tool calls diverge at call #{d.index + 1} ({call.name}, {d.field}):{' '}
      <button type="button" className="link-button" data-testid="replay-go-tool-step" onClick={() => go(call.turn, call.step)}>
        step {call.turn}.{call.step}
      </button>
      {d.logged && (
        <div className="mono clip">
          logged: {d.logged.name} {d.logged.args} → {d.logged.outcome}
        </div>
      )}
      {d.replayed && (
        <div className="mono clip">
          this build: {d.replayed.name} {d.replayed.args} → {d.replayed.outcome}
        </div>
      )}
    </div>
  );
}

function RequestLine({ report, go }: { readonly report: ReplayReport; readonly go: (turn: number, step: number, index?: number) => void }): ReactNode {
  const inspect = useApp((s) => s.inspectRequest);
  const r = report.requests;
  if (r.level === 'not-comparable') {
    return (
      <div data-testid="replay-requests" data-level="not-comparable">
        Requests: <b>not comparable</b> — an imported log has no wire bodies, so only the tool calls are compared ({r.replayed} request{r.replayed === 1 ? '' : 's'} answered from the log).
      </div>
    );
  }
  const d = r.divergence;
  if (!d) {
    return (
      <div data-testid="replay-requests" data-level="compared">
        Requests: {r.logged} logged, {r.replayed} sent by this build, {r.identical} byte-identical.
      </div>
    );
  }
  const where =
    d.path !== undefined
      ? ` (path ${d.path})`
      : d.kind === 'extra-request'
        ? ' (this build sends a request the log does not have)'
        : d.kind === 'missing-request'
          ? ' (this build sends fewer requests)'
          : d.kind === 'kind'
            ? ' (a step request where the log has a compaction request, or the reverse)'
            : '';
  return (
    <div data-testid="replay-requests" data-level="compared" data-diverged="true">
      <div data-testid="replay-divergence-text">
        <b>
          Diverges at {d.turn > 0 ? `step ${d.turn}.${d.step}` : d.label}: request{where}
        </b>
      </div>
      {d.causes.length > 0 && (
        <ul className="replay-causes" data-testid="replay-causes">
          {d.causes.map((c) => (
            <li key={c}>because {c}</li>
          ))}
        </ul>
      )}
      <div className="request-actions">
        <button type="button" className="link-button" data-testid="replay-go-step" onClick={() => go(d.turn, d.step, d.index)}>
          Go to {d.label}
        </button>
        {d.loggedBody !== undefined && d.replayedBody !== undefined && (
          <button
            type="button"
            className="link-button"
            data-testid="replay-compare-requests"
            onClick={(e) => {
              inspect({ index: d.index });
              requestInspectorTab('diff');
              focusAfterRender(byTestId('replay-request-diff'), { from: e.currentTarget });
            }}
          >
            Compare the logged and the replayed request
          </button>
        )}
      </div>
    </div>
  );
}

/** The banner under the header while a replay runs and after. */
export function ReplayBanner(): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const lastSeq = useSession((s) => s.lastSeq);
  const state = useReplayOf(sessionId);
  const go = useGoToStep();
  if (!state) return null;
  const close = (
    <button
      type="button"
      className="icon-button"
      data-testid="replay-banner-close"
      aria-label="Close the replay result"
      onClick={() => {
        dismissReplay(sessionId);
        focusAfterRender(byTestId('replay-button'));
      }}
    >
      ✕
    </button>
  );
  if (state.phase === 'running') {
    return (
      <div className="banner info replay-banner" data-testid="replay-banner" data-outcome="running" role="status">
        <span>Replaying this session on this build…</span>
      </div>
    );
  }
  if (state.phase === 'failed') {
    return (
      <div className="banner error replay-banner" data-testid="replay-banner" data-outcome="failed" role="status">
        <span tabIndex={-1} data-testid="replay-banner-focus">
          The replay could not run: {state.error}
        </span>
        {close}
      </div>
    );
  }
  const report = state.report;
  const tone = report.outcome === 'identical' ? 'ok' : report.outcome === 'diverged' ? 'warn' : 'error';
  return (
    <div className={`banner ${tone} replay-banner`} data-testid="replay-banner" data-outcome={report.outcome} role="status">
      <div className="replay-banner-body">
        <div tabIndex={-1} data-testid="replay-banner-focus" className="replay-verdict">
          {report.outcome === 'identical' ? (
            <b data-testid="replay-identical">
              {report.requests.level === 'not-comparable'
                ? '✓ Its tool calls replay identically on this build (its requests cannot be compared).'
                : '✓ This session replays identically on this build.'}
            </b>
          ) : report.outcome === 'diverged' ? (
            <b>This build would act differently from the log.</b>
          ) : (
            <b data-testid="replay-cannot">This session cannot be replayed on this build{report.error ? `: ${report.error.message} [${report.error.code}]` : '.'}</b>
          )}
        </div>
        {!report.error && (
          <>
            <RequestLine report={report} go={go} />
            <ToolLine report={report} go={go} />
          </>
        )}
        {report.stopped && <div className="muted">Stopped early: {report.stopped.reason}</div>}
        {state.lastSeq !== undefined && lastSeq > state.lastSeq && (
          <div className="muted" data-testid="replay-stale">
            The session has grown by {lastSeq - state.lastSeq} event{lastSeq - state.lastSeq === 1 ? '' : 's'} since this replay: replay again to include them.
          </div>
        )}
        {report.notes.map((n) => (
          <div key={n} className="muted">
            {n}
          </div>
        ))}
      </div>
      {close}
    </div>
  );
}

/** On a step row: marks the step where this build's request first differs (or its first differing tool call). */
export function ReplayStepMarker({ turn, step }: { readonly turn: number; readonly step: number }): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const state = useReplayOf(sessionId);
  if (state?.phase !== 'done') return null;
  const d = state.report.requests.divergence;
  const t = state.report.tools.divergence;
  const tCall = t ? (t.logged ?? t.replayed) : undefined;
  const request = d !== undefined && d.turn === turn && d.step === step;
  const tool = tCall !== undefined && tCall.turn === turn && tCall.step === step;
  if (!request && !tool) return null;
  return (
    <span
      className="badge badge-bad replay-marker"
      data-testid="replay-divergence-marker"
      data-level={request ? 'request' : 'tool'}
      title={request ? `on this build, the request of this step differs from the logged one${d?.path !== undefined ? ` at ${d.path}` : ''}` : 'on this build, this step makes a different tool call'}
    >
      ⚑ diverges{request ? '' : ' (tool call)'}
    </span>
  );
}

/** Pretty JSON of a body (the text itself when it does not parse). */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text) as unknown, null, 2);
  } catch {
    return text;
  }
}

/** A value at the divergent path as a person reads it: a string as its text, anything else as pretty JSON; absent: the field is not there. */
function valueText(json: string | undefined): string {
  if (json === undefined) return '(not present)';
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  } catch {
    return json;
  }
}

/** In the Diff tab of the divergent request: the logged request and this build's, side by side. */
export function ReplayRequestCompare({ inspection }: { readonly inspection: RequestInspection }): ReactNode {
  const sessionId = useSession((s) => s.sessionId);
  const state = useReplayOf(sessionId);
  const d = state?.phase === 'done' ? state.report.requests.divergence : undefined;
  const matches = d !== undefined && d.index === inspection.request.index && d.loggedBody !== undefined && d.replayedBody !== undefined;
  const summary = useMemo(() => {
    if (!matches) return undefined;
    try {
      return diffRequestBodies(JSON.parse(d.loggedBody!) as unknown, JSON.parse(d.replayedBody!) as unknown);
    } catch {
      return undefined;
    }
  }, [matches, d]);
  if (!matches) return null;
  return (
    <section className="replay-request-diff" data-testid="replay-request-diff" tabIndex={-1} aria-label="The logged request and this build's, side by side">
      <div className="section-label">replay on this build: the logged request and this build’s</div>
      <div className="prefix-verdict bad" data-testid="replay-request-path">
        First difference at <span className="mono">{d.path ?? d.kind}</span>
        {summary && summary.envelopeChanges.length > 0 ? <span className="muted"> · changed fields: {summary.envelopeChanges.join(', ')}</span> : null}
        {summary && summary.changed.length > 0 ? <span className="muted"> · changed messages: {summary.changed.map((c) => `#${c.index} ${c.after.role}`).join(', ')}</span> : null}
      </div>
      {d.diff !== undefined && (
        <pre tabIndex={0} className="plain wrap replay-unified" data-testid="replay-request-unified">
          {d.diff}
        </pre>
      )}
      <div className="replay-sides" data-testid="replay-values">
        <div className="replay-side">
          <div className="section-label">logged, at {d.path ?? 'the body'}</div>
          <pre tabIndex={0} className="plain wrap" data-testid="replay-logged-value">
            {valueText(d.before)}
          </pre>
        </div>
        <div className="replay-side">
          <div className="section-label">this build, at {d.path ?? 'the body'}</div>
          <pre tabIndex={0} className="plain wrap" data-testid="replay-replayed-value">
            {valueText(d.after)}
          </pre>
        </div>
      </div>
      <details className="replay-bodies">
        <summary>the whole bodies, side by side</summary>
        <div className="replay-sides">
          <div className="replay-side">
            <div className="section-label">logged</div>
            <pre tabIndex={0} className="json request-body-text" data-testid="replay-logged-body">
              {pretty(d.loggedBody!)}
            </pre>
          </div>
          <div className="replay-side">
            <div className="section-label">this build</div>
            <pre tabIndex={0} className="json request-body-text" data-testid="replay-replayed-body">
              {pretty(d.replayedBody!)}
            </pre>
          </div>
        </div>
      </details>
    </section>
  );
}
