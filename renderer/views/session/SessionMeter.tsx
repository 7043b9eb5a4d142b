/**
 * The session header's cost meter and budget field (docs/providers.md "Prices, overrides and budgets"). The meter shows what the session
 * cost so far (and its billed tokens, with what they count in the tooltip) and, while a turn runs,
 * the turn's elapsed time ticking; it moves with each billed response (the host re-lists sessions
 * on each one). The budget field sets a per-session limit — USD, or billed tokens where prices are
 * unknown — before or while a turn runs; the host checks it before every request.
 *
 * Beside it, a per-turn USD limit (each turn starts from 0).
 *
 * Keyboard: the budget button opens the field with the amount focused (Tab reaches the unit and
 * the per-turn amount); Enter sets them, Escape cancels, empty amounts clear the budget.
 */
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { SessionBudget, SessionSummary } from '../../../shared/api.js';
import { formatTokens } from '../../../shared/format.js';
import { formatUsd } from '../../../shared/pricing.js';
import { costLabel, costTokensTitle } from '../../../shared/session-cost.js';
import { useRuntime } from '../context.js';
import { tickSeconds, useNow } from '../sidebar/SessionCost.js';
import { useTimelineView } from '../timeline/timeline-view.js';

/** A budget amount without trailing zeros (`$0.5`, `$2`). */
const shortUsd = (usd: number): string =>
  formatUsd(usd)
    .replace(/(\.\d*?[1-9])0+$/, '$1')
    .replace(/\.0+$/, '');

/** `$1.00`, `50k tokens`, `$0.1/turn`, joined by ` / `. */
export function budgetLabel(budget: SessionBudget): string {
  const parts = [
    budget.sessionUsd !== undefined ? shortUsd(budget.sessionUsd) : '',
    budget.sessionTokens !== undefined ? `${formatTokens(budget.sessionTokens)} tokens` : '',
    budget.turnUsd !== undefined ? `${shortUsd(budget.turnUsd)}/turn` : '',
  ].filter(Boolean);
  return parts.join(' / ');
}

/**
 * Parses what was typed in the budget field. `''` clears; otherwise a number above 0 (a `$`
 * prefix and `k`/`M` suffixes for tokens are accepted).
 * @returns the budget, or an error naming the field.
 */
export function parseBudgetInput(text: string, unit: 'usd' | 'tokens'): { budget: SessionBudget } | { error: string } {
  const raw = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (raw === '') return { budget: {} };
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*([kKmM]?)$/.exec(raw);
  const field = unit === 'usd' ? 'budget (USD)' : 'budget (tokens)';
  if (!m) return { error: `${field}: "${text.trim()}" is not a number` };
  const value = Number(m[1]) * (m[2] === '' ? 1 : m[2]!.toLowerCase() === 'k' ? 1000 : 1_000_000);
  if (!(value > 0)) return { error: `${field}: must be above 0` };
  return { budget: unit === 'usd' ? { sessionUsd: value } : { sessionTokens: Math.round(value) } };
}

/** The inline budget editor; `initial` pre-fills it (the raise after a budget stop). */
export function BudgetEditor({
  sessionId,
  budget,
  initial,
  onDone,
}: {
  readonly sessionId: string;
  readonly budget?: SessionBudget;
  readonly initial?: { readonly unit: 'usd' | 'tokens'; readonly amount: number };
  readonly onDone: (set: boolean) => void;
}): ReactNode {
  const runtime = useRuntime();
  const [unit, setUnit] = useState<'usd' | 'tokens'>(initial?.unit ?? (budget?.sessionTokens !== undefined && budget.sessionUsd === undefined ? 'tokens' : 'usd'));
  const [text, setText] = useState(() => {
    if (initial) return String(initial.unit === 'usd' ? Number(initial.amount.toFixed(4)) : Math.round(initial.amount));
    const v = unit === 'usd' ? budget?.sessionUsd : budget?.sessionTokens;
    return v !== undefined ? String(v) : '';
  });
  const [turnText, setTurnText] = useState(budget?.turnUsd !== undefined ? String(budget.turnUsd) : '');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const turnInput = useRef<HTMLInputElement>(null);
  const editor = useRef<HTMLSpanElement>(null);
  const timelineView = useTimelineView();
  // Opened under a budget stop in the timeline, it is scrolled into sight there (timeline-view.ts).
  useLayoutEffect(() => {
    if (editor.current && input.current) timelineView.focusInPanel(editor.current, input.current);
    input.current?.select();
    // Once, on open.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- see above
  }, []);
  const save = async (): Promise<void> => {
    const parsed = parseBudgetInput(text, unit);
    if ('error' in parsed) {
      setError(parsed.error);
      input.current?.focus();
      return;
    }
    const perTurn = turnText.trim() === '' ? undefined : parseBudgetInput(turnText, 'usd');
    if (perTurn !== undefined && 'error' in perTurn) {
      setError(perTurn.error.replace('budget (USD)', 'budget per turn (USD)'));
      turnInput.current?.focus();
      return;
    }
    setBusy(true);
    // The other unit's session limit is kept unless this clears it; the per-turn limit is the field's.
    const session: SessionBudget =
      Object.keys(parsed.budget).length === 0
        ? {}
        : unit === 'usd'
          ? { ...(budget?.sessionTokens !== undefined ? { sessionTokens: budget.sessionTokens } : {}), ...parsed.budget }
          : { ...(budget?.sessionUsd !== undefined ? { sessionUsd: budget.sessionUsd } : {}), ...parsed.budget };
    const next: SessionBudget = { ...session, ...(perTurn?.budget.sessionUsd !== undefined ? { turnUsd: perTurn.budget.sessionUsd } : {}) };
    const refused = await runtime.actions.setBudget(sessionId, next);
    setBusy(false);
    if (refused !== undefined) {
      setError(refused);
      input.current?.focus();
      return;
    }
    onDone(true);
  };
  return (
    <span
      ref={editor}
      className="budget-editor"
      data-testid="budget-editor"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onDone(false);
        }
      }}
    >
      <label className="sr-only" htmlFor={`budget-${sessionId}`}>
        Session budget
      </label>
      <span className="muted">session</span>
      <input
        id={`budget-${sessionId}`}
        ref={input}
        className="budget-input mono"
        data-testid="budget-input"
        value={text}
        placeholder={unit === 'usd' ? 'e.g. 0.50' : 'e.g. 200k'}
        aria-invalid={error !== undefined}
        aria-describedby={error !== undefined ? `budget-error-${sessionId}` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setError(undefined);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void save();
          }
        }}
      />
      <select className="budget-unit" data-testid="budget-unit" aria-label="Budget unit" value={unit} onChange={(e) => setUnit(e.target.value === 'tokens' ? 'tokens' : 'usd')}>
        <option value="usd">USD</option>
        <option value="tokens">tokens</option>
      </select>
      <label className="budget-turn">
        <span className="muted">per turn $</span>
        <input
          ref={turnInput}
          className="budget-input mono"
          data-testid="budget-turn-input"
          value={turnText}
          placeholder="none"
          title="USD per turn: a request that could take this turn's spend past it is not sent (empty: no per-turn limit)"
          aria-invalid={error !== undefined && error.includes('per turn')}
          onChange={(e) => {
            setTurnText(e.target.value);
            setError(undefined);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void save();
            }
          }}
        />
      </label>
      <button type="button" className="small primary" data-testid="budget-save" disabled={busy} onClick={() => void save()}>
        Set
      </button>
      <button type="button" className="small" data-testid="budget-cancel" onClick={() => onDone(false)}>
        Cancel
      </button>
      {error !== undefined && (
        <span className="field-error" role="alert" id={`budget-error-${sessionId}`} data-testid="budget-error">
          {error}
        </span>
      )}
    </span>
  );
}

/** The header's meter: cost so far, the running turn's clock, the budget. */
export function SessionMeter({ sessionId, summary, readOnly }: { readonly sessionId: string; readonly summary: SessionSummary | undefined; readonly readOnly: boolean }): ReactNode {
  const running = summary?.status === 'running' && summary.turnStartedAt !== undefined;
  const now = useNow(running);
  const [editing, setEditing] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const cost = summary?.cost;
  const label = costLabel(cost);
  const budget = summary?.budget;
  const share =
    budget?.sessionUsd !== undefined && cost?.usd !== undefined ? cost.usd / budget.sessionUsd : budget?.sessionTokens !== undefined && cost ? cost.tokens / budget.sessionTokens : undefined;
  return (
    <span className="session-meter" data-testid="session-meter">
      {running && (
        <span className="mono" data-testid="meter-elapsed" title="Time since the running turn started">
          {tickSeconds(now - summary.turnStartedAt!)}
        </span>
      )}
      {cost && label && (
        <span className="mono" data-testid="meter-cost" title={`cost so far (at the prices logged for each request)\n${costTokensTitle(cost)}`}>
          {label}
          {/* The tokens, unless the label already says them (no price known at all). */}
          {(cost.usd !== undefined || cost.knownUsd > 0) && <span className="muted"> · {formatTokens(cost.tokens)} tokens</span>}
        </span>
      )}
      {editing ? (
        <BudgetEditor
          sessionId={sessionId}
          {...(budget ? { budget } : {})}
          onDone={() => {
            setEditing(false);
            requestAnimationFrame(() => button.current?.focus());
          }}
        />
      ) : (
        !readOnly && (
          <button
            ref={button}
            type="button"
            className={`small budget-button${share !== undefined && share >= 0.8 ? ' near' : ''}`}
            data-testid="budget-button"
            title={
              budget
                ? `Session budget ${budgetLabel(budget)}${share !== undefined ? ` (${Math.round(share * 100)}% used)` : ''}: a request that could cross it is not sent. Click to change.`
                : 'Set a budget for this session (USD, or tokens where prices are unknown)'
            }
            onClick={() => setEditing(true)}
          >
            {budget ? `budget ${budgetLabel(budget)}${share !== undefined ? ` · ${Math.round(share * 100)}%` : ''}` : 'set budget'}
          </button>
        )
      )}
    </span>
  );
}
