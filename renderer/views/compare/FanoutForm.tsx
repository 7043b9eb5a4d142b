/**
 * "Fan out…" under a finished turn (README "Fan-out, apply, rewind"): 2–8 branches from this turn end, each a fork in its
 * own folder, run at once. Per branch a variant: a model of the endpoint (its list), a reasoning
 * effort, its own prompt, a system-prompt addendum. The check command is proposed from the project
 * and editable. Starting opens the board; Escape or Cancel closes the form. Keyboard only: the
 * count takes focus on open, the timeline scrolling the form into sight (timeline-view.ts); Tab
 * walks the fields; Enter on Start runs. It is as wide as the timeline: a variant's fields wrap.
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { FanoutVariantInput } from '../../../shared/api.js';
import { describeError } from '../../host/host-client.js';
import { byTestId, focusAfterRender } from '../../keyboard/focus-after-render.js';
import { useApp, useClient } from '../context.js';
import { useTimelineView } from '../timeline/timeline-view.js';
import { effortChoices } from '../common/effort-choices.js';

interface VariantDraft {
  model: string;
  effort: string;
  prompt: string;
  system: string;
}

/** The draft as the host's variant (empty fields left out). */
function toInput(d: VariantDraft): FanoutVariantInput {
  return {
    ...(d.model ? { model: d.model } : {}),
    ...(d.effort ? { effort: d.effort } : {}),
    ...(d.prompt.trim() ? { prompt: d.prompt } : {}),
    ...(d.system.trim() ? { system: d.system } : {}),
  };
}

/**
 * `atSeq`: the seq of the turn's `turn/end` the branches fork at; `turn`: that turn's number (1-based,
 * as the timeline shows it), named on the form's first line so it reads without the row above in sight.
 */
export function FanoutForm({ sessionId, atSeq, turn, onClose }: { readonly sessionId: string; readonly atSeq: number; readonly turn: number; readonly onClose: () => void }): ReactNode {
  const client = useClient();
  const active = useApp((s) => s.settings?.active);
  // The efforts of the active provider, labelled as Settings labels them (one list: common/effort-choices.ts).
  const efforts = useApp((s) => s.settings?.presets.find((p) => p.id === s.settings?.active.provider)?.reasoningEfforts);
  const openBoard = useApp((s) => s.openBoard);
  const [models, setModels] = useState<readonly string[]>([]);
  const [count, setCount] = useState(2);
  const [prompt, setPrompt] = useState('');
  const [check, setCheck] = useState('');
  const [drafts, setDrafts] = useState<VariantDraft[]>(() => Array.from({ length: 8 }, () => ({ model: '', effort: '', prompt: '', system: '' })));
  const [error, setError] = useState<string | undefined>();
  const [starting, setStarting] = useState(false);
  const countRef = useRef<HTMLSelectElement>(null);
  const formRef = useRef<HTMLDivElement>(null);
  const timelineView = useTimelineView();
  // Opened by its button: the count takes focus (the person asked for the form), in sight. Before
  // the row is measured taller, so the timeline no longer follows its tail when it grows.
  useLayoutEffect(() => {
    if (formRef.current && countRef.current) timelineView.focusInPanel(formRef.current, countRef.current);
    // Once, on open.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, []);

  useEffect(() => {
    let live = true;
    void client.proposeFanoutCheck({ sessionId }).then(
      (r) => live && r.check !== undefined && setCheck((c) => c || r.check!),
      () => undefined,
    );
    if (active) {
      void client.listModels({ provider: active.provider, baseUrl: active.baseUrl }).then(
        (l) => {
          if (!live) return;
          const ids = l.models.map((m) => m.id);
          setModels(ids);
          // A different model per branch by default, when the endpoint has that many.
          setDrafts((prev) => prev.map((d, i) => (d.model ? d : { ...d, model: ids[i % Math.max(1, ids.length)] ?? active.model })));
        },
        () => undefined,
      );
    }
    return () => {
      live = false;
    };
  }, [client, sessionId, active]);

  const update = (i: number, patch: Partial<VariantDraft>): void => setDrafts((prev) => prev.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const start = async (): Promise<void> => {
    if (!prompt.trim()) {
      setError('Write the prompt every branch gets (a branch may have its own below).');
      document.querySelector<HTMLElement>('[data-testid="fanout-prompt"]')?.focus();
      return;
    }
    setStarting(true);
    setError(undefined);
    try {
      const started = await client.startFanout({ sessionId, atSeq, prompt, variants: drafts.slice(0, count).map(toInput), ...(check.trim() ? { check: check.trim() } : {}) });
      onClose();
      openBoard({ ids: started.branches.map((b) => b.sessionId), fanoutId: started.fanoutId, check: started.check });
    } catch (e) {
      setError(describeError(e));
      focusAfterRender(byTestId('fanout-error'));
    } finally {
      setStarting(false);
    }
  };
  const modelOptions = [...new Set([...(active ? [active.model] : []), ...models])];
  return (
    <div
      ref={formRef}
      className="fanout-form"
      data-testid="fanout-form"
      role="group"
      aria-label={`Fan out from the end of turn ${turn}`}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        // The timeline's row keys stay out of the form.
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <div className="fanout-form-title" data-testid="fanout-turn">
        Fan out from the end of turn {turn}
      </div>
      <label>
        Branches
        <select ref={countRef} data-testid="fanout-count" value={count} onChange={(e) => setCount(Number(e.target.value))}>
          {[2, 3, 4, 5, 6, 7, 8].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <span className="muted">each a fork in its own folder, all running at once</span>
      </label>
      <label>
        Prompt
        <textarea data-testid="fanout-prompt" rows={2} value={prompt} placeholder="What every branch is asked" onChange={(e) => setPrompt(e.target.value)} />
      </label>
      {drafts.slice(0, count).map((d, i) => (
        <div key={i} className="fanout-variant" data-testid="fanout-variant" data-index={i}>
          <span className="muted fanout-variant-label">#{i + 1}</span>
          <span className="fanout-variant-fields">
            <select data-testid={`fanout-model-${i}`} aria-label={`Branch ${i + 1} model`} value={d.model} onChange={(e) => update(i, { model: e.target.value })}>
              {modelOptions.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
            {effortChoices(efforts, d.effort).length > 0 && (
              <select
                data-testid={`fanout-effort-${i}`}
                aria-label={`Branch ${i + 1} reasoning effort`}
                title="Reasoning effort"
                value={d.effort}
                onChange={(e) => update(i, { effort: e.target.value })}
              >
                {effortChoices(efforts, d.effort).map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            )}
            <input
              data-testid={`fanout-system-${i}`}
              aria-label={`Branch ${i + 1} system prompt addendum`}
              placeholder="system addendum"
              value={d.system}
              onChange={(e) => update(i, { system: e.target.value })}
            />
            <input
              data-testid={`fanout-variant-prompt-${i}`}
              aria-label={`Branch ${i + 1} own prompt`}
              className="fanout-own-prompt"
              placeholder="own prompt (else the one above)"
              value={d.prompt}
              onChange={(e) => update(i, { prompt: e.target.value })}
            />
          </span>
        </div>
      ))}
      <label>
        Check
        <input data-testid="fanout-check" className="mono" value={check} placeholder="command run in each branch's folder after its turn" onChange={(e) => setCheck(e.target.value)} />
      </label>
      {error && (
        <div className="banner error" data-testid="fanout-error" tabIndex={-1} role="alert">
          {error}
        </div>
      )}
      <div className="board-actions">
        <button type="button" className="small primary" data-testid="fanout-start" disabled={starting} onClick={() => void start()}>
          {starting ? 'Starting…' : `Start ${count} branches`}
        </button>
        <button type="button" className="small" data-testid="fanout-close" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
