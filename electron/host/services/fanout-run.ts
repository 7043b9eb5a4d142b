/**
 * Fan-out from a turn end (README "Fan-out, apply, rewind"): N children of one session, each a fork by reference in its
 * own worktree restored to that turn's checkpoint, run at the same time in this process with
 * bounded concurrency, each with its own variant (route, prompt, system addendum, effort). After a
 * branch's turn its check runs in its folder and is logged there (`check/result`). One branch's
 * failure ends only that branch; `cancel()` cancels all (their closers are logged by the agents).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderChoice } from '../../../shared/api.js';
import { ForklineError } from '../../../shared/errors.js';
import type { CheckResultData } from '../../../shared/events.js';
import type { Agent } from '../../agent/agent.js';
import type { Host } from '../host.js';
import type { ClientConnection } from '../host-client.js';
import type { SessionRepository } from '../../store/session-repository.js';
import { titleFromPrompt } from './session-title.js';
import { fanoutBranchTitle } from '../../../shared/distinct-names.js';
import { PROVIDER_PRESETS } from '../../llm/providers.js';
import { runCheck } from '../../fanout/check-runner.js';

/** Most branches a fan-out makes, and the fewest. */
export const MAX_BRANCHES = 8;
export const MIN_BRANCHES = 2;
/** Branches running at once unless told otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** One `--variant`: what this branch does differently. */
export interface VariantSpec {
  /** The text given (`model=A`, `prompt=@fix.txt,effort=high`). */
  readonly label: string;
  readonly route: Partial<ProviderChoice>;
  readonly prompt?: string;
  readonly systemAddendum?: string;
}

const VARIANT_KEYS = ['model', 'provider', 'base-url', 'effort', 'prompt', 'system'] as const;

/**
 * Parses a `--variant` value: `key=value` pairs joined by commas (a comma starts a new pair only
 * before a known key); `prompt=@FILE` / `system=@FILE` read the file.
 * @throws ForklineError FANOUT_INVALID naming the fix.
 */
export function parseVariant(raw: string, readText: (file: string) => string): VariantSpec {
  const parts = raw.split(new RegExp(`,(?=(?:${VARIANT_KEYS.join('|')})=)`));
  const route: { -readonly [K in keyof ProviderChoice]?: ProviderChoice[K] } = {};
  let prompt: string | undefined;
  let systemAddendum: string | undefined;
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    let value = eq > 0 ? part.slice(eq + 1) : '';
    if (!(VARIANT_KEYS as readonly string[]).includes(key)) {
      throw new ForklineError('FANOUT_INVALID', `--variant ${JSON.stringify(raw)}: "${part}" is not key=value with a key of ${VARIANT_KEYS.join(', ')} (e.g. --variant model=deepseek-v4-pro)`);
    }
    if ((key === 'prompt' || key === 'system') && value.startsWith('@')) {
      const file = value.slice(1);
      try {
        value = readText(file);
      } catch {
        throw new ForklineError('FANOUT_INVALID', `--variant ${key}=@${file}: the file cannot be read; give an existing file (or the text itself: ${key}="…")`);
      }
    }
    if (value.trim() === '') throw new ForklineError('FANOUT_INVALID', `--variant ${JSON.stringify(raw)}: ${key} is empty`);
    if (key === 'model') route.model = value.trim();
    else if (key === 'provider') route.provider = value.trim();
    else if (key === 'base-url') route.baseUrl = value.trim();
    else if (key === 'effort') route.reasoningEffort = value.trim();
    else if (key === 'prompt') prompt = value;
    else systemAddendum = value;
  }
  return { label: raw.length > 120 ? `${raw.slice(0, 117)}…` : raw, route, ...(prompt !== undefined ? { prompt } : {}), ...(systemAddendum !== undefined ? { systemAddendum } : {}) };
}

/**
 * A variant's full route over the run's active one. A new provider without a base URL or model
 * takes its preset's.
 * @throws ForklineError FANOUT_INVALID for an unknown provider.
 */
export function variantRoute(active: ProviderChoice, variant: VariantSpec): ProviderChoice {
  const r = variant.route;
  if (r.provider !== undefined && !Object.hasOwn(PROVIDER_PRESETS, r.provider)) {
    throw new ForklineError('FANOUT_INVALID', `--variant ${variant.label}: unknown provider "${r.provider}"; use one of ${Object.keys(PROVIDER_PRESETS).join(', ')}`);
  }
  if (r.provider === undefined || r.provider === active.provider) return { ...active, ...r };
  const preset = PROVIDER_PRESETS[r.provider as keyof typeof PROVIDER_PRESETS];
  return {
    provider: r.provider,
    baseUrl: r.baseUrl ?? preset.baseUrl,
    model: r.model ?? preset.defaultModel ?? '',
    ...(r.reasoningEffort !== undefined ? { reasoningEffort: r.reasoningEffort } : {}),
  };
}

/** What a fan-out uses of the runtime (a Runtime satisfies it; so does a host connection's host). */
export interface FanoutDeps<C extends ClientConnection = ClientConnection> {
  readonly host: Host<C>;
  readonly repository: SessionRepository;
}

/** One branch of a running fan-out. */
export interface FanoutBranch {
  readonly index: number;
  readonly sessionId: string;
  readonly cwd: string;
  readonly variant: VariantSpec;
  readonly route: ProviderChoice;
  /** How it ended: the turn's end reason, or `failed` when it could not run (with `error`). */
  outcome?: string;
  error?: string;
  check?: CheckResultData;
}

export interface FanoutParams {
  readonly sessionId: string;
  readonly atSeq?: number;
  readonly prompt: string;
  readonly variants: readonly VariantSpec[];
  readonly routes: readonly ProviderChoice[];
  readonly check: string;
  readonly checkTimeoutMs?: number;
  readonly concurrency?: number;
  /** Progress lines (one per event worth telling). */
  readonly onLine?: (line: string) => void;
}

/**
 * Runs a fan-out on `runtime`. Forks are made first (one failing fork — an open turn, no
 * checkpoint — refuses before anything runs: the first one fails and nothing exists yet).
 */
export class Fanout<C extends ClientConnection = ClientConnection> {
  readonly branches: FanoutBranch[] = [];
  private readonly agents = new Map<string, Agent>();
  private readonly abort = new AbortController();

  constructor(
    private readonly runtime: FanoutDeps<C>,
    private readonly params: FanoutParams,
  ) {}

  /**
   * Forks every branch into its own worktree, all at once (each restore and pin is its own git
   * processes with its own index file and ref in the shadow repository, so N forks cost about one
   * fork's wall time instead of N). Branches keep their variants' order; when a fork fails, the
   * ones that succeeded are kept in {@link branches} and the first failure is thrown.
   */
  async prepare(): Promise<void> {
    const { runtime, params } = this;
    const connection = runtime.host.connect(() => undefined);
    try {
      const forks = await Promise.allSettled(
        params.variants.map(() => connection.forkSession({ sessionId: params.sessionId, ...(params.atSeq !== undefined ? { atSeq: params.atSeq } : {}), worktree: true })),
      );
      forks.forEach((fork, index) => {
        if (fork.status === 'fulfilled') this.branches.push({ index, sessionId: fork.value.id, cwd: fork.value.cwd ?? '', variant: params.variants[index]!, route: params.routes[index]! });
      });
      const failed = forks.find((fork): fork is PromiseRejectedResult => fork.status === 'rejected');
      if (failed) throw failed.reason;
    } finally {
      connection.dispose();
    }
  }

  /** Variables of branch `index`'s tool processes and check: its id and a distinct port offset. */
  static branchEnv(branch: Pick<FanoutBranch, 'index' | 'sessionId'>): Record<string, string> {
    return { FORKLINE_BRANCH: branch.sessionId, FORKLINE_BRANCH_INDEX: String(branch.index + 1), FORKLINE_PORT_OFFSET: String((branch.index + 1) * 100) };
  }

  /** Runs every branch (bounded concurrency) and its check; resolves when all are done. */
  async run(): Promise<void> {
    const limit = Math.max(1, Math.min(this.params.concurrency ?? DEFAULT_CONCURRENCY, this.branches.length));
    let next = 0;
    const worker = async () => {
      while (next < this.branches.length && !this.abort.signal.aborted) {
        const branch = this.branches[next++]!;
        await this.runBranch(branch);
      }
    };
    await Promise.all(Array.from({ length: limit }, worker));
    for (const branch of this.branches) if (branch.outcome === undefined) branch.outcome = 'cancelled';
  }

  /** Cancels every running branch (and its check); branches not started are not started. */
  cancel(): void {
    this.abort.abort();
    for (const agent of this.agents.values()) agent.cancel({ kind: 'user' });
  }

  private say(branch: FanoutBranch, text: string): void {
    this.params.onLine?.(`[${branch.index + 1} ${branch.sessionId.slice(0, 8)}] ${text}`);
  }

  private async runBranch(branch: FanoutBranch): Promise<void> {
    const { runtime, params } = this;
    const env = Fanout.branchEnv(branch);
    try {
      const agent = runtime.host.ensureAgent(branch.sessionId, {
        run: { route: branch.route, toolEnv: env, ...(branch.variant.systemAddendum !== undefined ? { systemAddendum: branch.variant.systemAddendum } : {}) },
      });
      this.agents.set(branch.sessionId, agent);
      const setup = join(branch.cwd, '.forkline', 'setup');
      if (existsSync(setup)) {
        this.say(branch, 'running .forkline/setup');
        const result = await runCheck({
          command: 'sh .forkline/setup',
          cwd: branch.cwd,
          env,
          purpose: 'setup',
          turn: agent.session.lastTurn,
          signal: this.abort.signal,
          timeoutMs: params.checkTimeoutMs,
        });
        agent.session.append({ type: 'check/result', data: result });
        this.say(branch, `setup ${result.passed ? 'done' : `failed (exit ${result.exitCode ?? result.signal})`}`);
      }
      if (this.abort.signal.aborted) return;
      const prompt = branch.variant.prompt ?? params.prompt;
      runtime.repository.rename(
        branch.sessionId,
        fanoutBranchTitle(
          params.variants.map((v) => v.label),
          branch.index,
          titleFromPrompt(prompt),
        ),
      );
      const before = agent.session.lastTurn;
      this.say(branch, `${branch.variant.label}: ${branch.route.model} started`);
      agent.followup(prompt);
      await agent.whenIdle();
      const end = agent.session.events.findLast((e) => e.type === 'turn/end' && e.data.turn > before);
      const reason = end?.type === 'turn/end' ? end.data.reason : undefined;
      branch.outcome = reason?.kind ?? 'failed';
      if (reason?.kind === 'error') branch.error = `${reason.failure.code}: ${reason.failure.message}`;
      this.say(branch, `turn ended: ${branch.outcome}${branch.error ? ` (${branch.error})` : ''}`);
      if (this.abort.signal.aborted || reason?.kind !== 'completed') return;
      const result = await runCheck({ command: params.check, cwd: branch.cwd, env, turn: agent.session.lastTurn, signal: this.abort.signal, timeoutMs: params.checkTimeoutMs });
      agent.session.append({ type: 'check/result', data: result });
      branch.check = result;
      const counts = result.counts ? ` — ${result.counts.passed} passed, ${result.counts.failed} failed` : '';
      this.say(branch, `check ${result.timedOut ? 'timed out' : result.passed ? 'passed' : `failed (exit ${result.exitCode ?? result.signal})`}${counts}`);
    } catch (error) {
      branch.outcome = 'failed';
      branch.error = error instanceof Error ? error.message : String(error);
      this.say(branch, `failed: ${branch.error}`);
    }
  }
}

/**
 * Refuses a fan-out whose variants cannot run, before anything starts: count out of range, an
 * unknown model (one the endpoint does not list, when it lists models).
 * @throws ForklineError FANOUT_INVALID naming the fix.
 */
export async function checkVariants<C extends ClientConnection>(runtime: FanoutDeps<C>, variants: readonly VariantSpec[], routes: readonly ProviderChoice[]): Promise<void> {
  if (variants.length < MIN_BRANCHES || variants.length > MAX_BRANCHES) {
    throw new ForklineError('FANOUT_INVALID', `a fan-out makes ${MIN_BRANCHES} to ${MAX_BRANCHES} branches: pass that many --variant options (got ${variants.length})`);
  }
  const listings = new Map<string, Promise<readonly string[] | undefined>>();
  for (const [i, route] of routes.entries()) {
    if (route.model.trim() === '') throw new ForklineError('FANOUT_INVALID', `--variant ${variants[i]!.label}: no model for provider ${route.provider}; add model=M`);
    if (route.baseUrl.trim() === '') throw new ForklineError('FANOUT_INVALID', `--variant ${variants[i]!.label}: no base URL for provider ${route.provider}; add base-url=URL`);
    const key = `${route.provider} ${route.baseUrl}`;
    if (!listings.has(key)) {
      listings.set(
        key,
        runtime.host.listModels({ provider: route.provider, baseUrl: route.baseUrl }).then(
          (l) => (l.listedByEndpoint ? l.models.map((m) => m.id) : undefined),
          () => undefined,
        ),
      );
    }
    const listed = await listings.get(key)!;
    if (listed !== undefined && listed.length > 0 && !listed.includes(route.model)) {
      throw new ForklineError(
        'FANOUT_INVALID',
        `--variant ${variants[i]!.label}: ${route.baseUrl} does not offer model "${route.model}"; it offers ${listed.slice(0, 12).join(', ')}${listed.length > 12 ? ', …' : ''} (forkline models --base-url ${route.baseUrl} lists them)`,
      );
    }
  }
}
