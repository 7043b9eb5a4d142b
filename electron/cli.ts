/**
 * Size: over 500 lines because most commands' option parsing and output still sit here (fanout,
 * apply, rewind and price already live in electron/cli/commands/); the split into one file per
 * command is the next step (a first attempt, branch clisplit, conflicted with the history correction).
 *
 * `forkline` — the headless entry (docs/architecture.md §2): run, resume, serve, ls, show, fork, export, import.
 * Plain Node (no Electron). Every command opens the same SQLite store as the desktop app.
 * Bundled ahead of time (scripts/build-cli.js → dist/cli); the agent, model client, tools and MCP
 * load only for the commands that need them, so `ls`, `show` and `help` start at once.
 *
 * Exit codes (cli/exit-codes.ts): 0 success; 1 the turn ended without completing (error, cancel,
 * max-tokens, budget) or a command failed; 2 bad usage, configuration or input (e.g. no API key, a file
 * that is not a session); 129 / 130 / 143 `run` or `resume` stopped by SIGHUP / Ctrl+C / SIGTERM
 * (the turn was cancelled and the session saved).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ProviderChoice } from '../shared/api.js';
import { ForklineError } from '../shared/errors.js';
import { formatImportSummary, type ImportSummary } from '../shared/import-summary.js';
import { isImportedSession, type ApprovalPolicyName, type SessionEvent } from '../shared/events.js';
import { visibleInline, visibleText } from '../shared/visible-text.js';
import type { ApprovalAnswerer } from './agent/approval-gate.js';
import { terminalAnswerer } from './cli/terminal-answerer.js';
import { resolveCliApproval, type CliApproval } from './cli/cli-config.js';
import type { CommandContext } from './cli/commands/fanout.js';
import { EXIT_USAGE, isInputError } from './cli/exit-codes.js';
import { resolveSessionPrefix } from './cli/id-prefix.js';
import { jsonLine, sessionListEntry, sessionShowJson } from './cli/json-output.js';
import { printMcpStatus } from './cli/mcp-status.js';
import { unknownCommandMessage, unknownOptionMessage } from './cli/option-suggest.js';
import { openOutputFile } from './cli/output-file.js';
import { streamExport } from './cli/export-stream.js';
import { cliOutputs, exitWhenWritten } from './cli/cli-output.js';
import { watchProcessTerminals } from './cli/dead-terminal.js';
import { reportError, UsageError } from './cli/error-line.js';
import { ProcessLog } from './cli/process-log.js';
import { listenForStopSignals, SIGNAL_EXIT_CODES, type StopSignal } from './cli/stop-signals.js';
import { openStoredSessions } from './cli/stored-sessions.js';
import { budgetFromFlags, cliPriceBook, cliPriceOverrides } from './cli/pricing-options.js';
import { priceCommand, tokenText, totalText } from './cli/commands/price.js';
import { sessionCost } from '../shared/session-cost.js';
import { formatUsd } from '../shared/pricing.js';
import { sessionCostJson } from './cli/cost-json.js';
import type { ImportSource } from './host/services/folder-import.js';
import { describeReason, TimelineText } from './cli/timeline-text.js';
import { defaultDataDir } from './host/data-dir.js';
import type { Runtime } from './host/runtime.js';
import type { ModelLimitValues } from './llm/model-limits.js';
import { checkFileSize } from './session/import-limits.js';
import { leftoverNotice } from './store/session-repository.js';
import { recordedHereFrom } from './store/session-provenance.js';
import { dialectOf, providerPreset } from './llm/providers.js';
import { LlmConfigurationError, thinkingFields } from './llm/reasoning-effort.js';

/** Which of fds 0–2 are terminals, taken before anything can change them (dead-terminal.ts). */
const terminals = watchProcessTerminals();
/** Every write to stdout / stderr goes through these (cli-output.ts: whole output, a reader that leaves). */
const stdout = cliOutputs().stdout;
const stderr = cliOutputs().stderr;
/** The engine's console messages, one line each (process-log.ts). */
const processLog = new ProcessLog(stderr);
processLog.install();

const USAGE = `forkline — a coding agent whose sessions are append-only event logs

Usage:
  forkline run --cwd DIR [options] "task"      run one task in DIR and stream the turn
  forkline resume ID [options] "follow-up"     continue a stored session (an imported one: with --cwd DIR,
                                               as a new session working in DIR; --take-over: even one
                                               that another running Forkline holds; it stops saving it)
  forkline serve [--port N]                    browser mode: serve the UI on 127.0.0.1
  forkline ls [--json]                         list stored sessions
  forkline show ID [--json]                    print a session's timeline
  forkline fork ID [--at SEQ] [--worktree | --cwd DIR]
                                               fork a session at a completed turn (--worktree: in its own
                                               folder restored to the workspace as it was then; --cwd: in
                                               DIR — needed to continue an imported session)
  forkline compare A B [--json]                compare two branches: turns, tokens, cost, time, file diff
                                               (A B C … or --json: the branches ranked, as fanout ranks them)
  forkline fanout ID [--at SEQ] --variant K=V[,K=V…] --variant … [--check CMD] [--json] "prompt"
                                               2–8 branches from a turn end, each in its own folder, run at
                                               once and ranked by the check (K: model, provider, base-url,
                                               effort, prompt, system; prompt=@FILE reads a file);
                                               --check-timeout S, --concurrency N; --cleanup: remove ID's
                                               branch folders (--keep BRANCH)
  forkline apply BRANCH [--json]               merge a branch's file changes into its parent's folder
                                               (three-way; conflicts are listed and nothing is written)
  forkline rewind ID --to SEQ                  restore the session's folder to that turn and continue from
                                               there as a new fork; the abandoned line stays restorable
  forkline export ID [--out FILE]              write a session as JSONL (stdout by default)
  forkline import FILE|DIR…                    import session logs: Forkline or DeepSeek Harness JSONL,
                                               Claude Code transcripts, Codex rollouts, OpenHands
                                               trajectories, Gemini CLI chats (detected by content),
                                               Cline / Roo Code task folders, opencode storage
                                               folders; prints a summary
  forkline models [--provider P | --base-url URL]   list an endpoint's models with their context windows
  forkline price ID [--as MODEL,…] [--json]    what a session cost, and would have cost on other models
                                               (MODEL: PROVIDER:MODEL, e.g. openai:gpt-5, or a bare id)
  forkline replay ID|FILE.jsonl [--json] [--live-tools]
                                               feed a session's logged model answers to this build and show
                                               where it now differs (request bytes, tool calls; --live-tools:
                                               files); exit 0 identical, 1 diverged, 2 cannot replay

Model options (run, resume, serve):
  --provider deepseek|openai|openrouter|gemini|ollama|vllm|llamacpp|lmstudio|custom
                     (default: deepseek, or custom with --base-url; custom learns the dialect from the wire)
  --base-url URL     any OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
  --model M          model id (default: the provider's default, deepseek-v4-flash)
  --effort E         reasoning effort (DeepSeek: off|low|high|max)
  --context-window N the model's context window in tokens (wins over what the endpoint publishes)
  --max-output N     max output tokens per request
  --approval ask|allow|deny   shell commands and file writes (default: ask, or approvalPolicy in
                     <data dir>/cli.json; with no terminal, ask denies). The desktop app's and browser
                     mode's approval setting applies to the UI only.
  --mcp-config FILE  MCP servers ({"mcpServers": {...}}) for this run; repeatable
Budgets (run, resume): a request that could cross one is not sent; the turn ends with "budget"
  --budget USD       for the whole session (what it already spent counts)
  --turn-budget USD  per turn
  --max-tokens-total N   billed tokens for the whole session (for models with no known price)
  Prices: the bundled list (genai-prices 0.1.8); your own per endpoint and model in <data dir>/cli.json,
  e.g. {"prices": [{"baseUrl": "http://127.0.0.1:11434/v1", "model": "*", "inputMtok": 0, "outputMtok": 0}]}
Other:
  --data-dir DIR     where sessions are stored (default: ${defaultDataDir()})
  --json             ls, show, compare, price: one JSON document on stdout (see the README)

Session ids may be shortened to any unique prefix. Exit codes: 0 success, 1 the turn did not
complete or the command failed, 2 bad usage, configuration or input.

Keys: DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY from the environment.`;

const COMMANDS = ['run', 'resume', 'serve', 'ls', 'show', 'fork', 'compare', 'fanout', 'apply', 'rewind', 'export', 'import', 'models', 'price', 'replay', 'help'] as const;

interface ParsedCli {
  readonly command: string;
  readonly positionals: string[];
  readonly values: Record<string, string | boolean | undefined>;
}

/** Every option of every command (node:util parseArgs, strict: unknown ones are refused). */
const OPTIONS = {
  cwd: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  effort: { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  approval: { type: 'string' },
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  at: { type: 'string' },
  out: { type: 'string' },
  worktree: { type: 'boolean' },
  'take-over': { type: 'boolean' },
  'no-color': { type: 'boolean' },
  json: { type: 'boolean' },
  'mcp-config': { type: 'string', multiple: true },
  variant: { type: 'string', multiple: true },
  check: { type: 'string' },
  'check-timeout': { type: 'string' },
  concurrency: { type: 'string' },
  cleanup: { type: 'boolean' },
  keep: { type: 'string', multiple: true },
  to: { type: 'string' },
  budget: { type: 'string' },
  'turn-budget': { type: 'string' },
  'max-tokens-total': { type: 'string' },
  as: { type: 'string' },
  'live-tools': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** @throws UsageError for an unknown option (naming the nearest known one) or a missing value. */
function parse(argv: string[]): ParsedCli {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const code = String((error as { code?: string }).code ?? '');
    const option = /'(-[^'\s]+)'/.exec((error as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) throw new UsageError(unknownOptionMessage(option, Object.keys(OPTIONS)));
    if (code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((error as Error).message);
    throw error;
  }
  const { values, positionals } = parsed;
  // No command at all: help on stderr and exit 2 (help asked for: stdout and exit 0).
  const [command = values.help ? 'help' : '', ...rest] = positionals;
  return { command: values.help ? 'help' : command, positionals: rest, values: values as ParsedCli['values'] };
}

function modelOverrides(values: ParsedCli['values']): Partial<ProviderChoice> {
  const baseUrl = values['base-url'] as string | undefined;
  const provider = (values['provider'] as string | undefined) ?? (baseUrl !== undefined ? 'custom' : undefined);
  const out: { -readonly [K in keyof ProviderChoice]?: ProviderChoice[K] } = {};
  if (provider !== undefined) {
    out.provider = provider;
    out.baseUrl = baseUrl ?? providerPreset(provider).baseUrl;
    const defaultModel = providerPreset(provider).defaultModel;
    if (defaultModel !== undefined) out.model = defaultModel;
  }
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  if (values['model'] !== undefined) out.model = values['model'] as string;
  if (values['effort'] !== undefined) out.reasoningEffort = values['effort'] as string;
  return out;
}

/** --context-window / --max-output as token counts. @throws UsageError for anything but a positive integer. */
function limitOverrides(values: ParsedCli['values']): ModelLimitValues {
  const read = (flag: 'context-window' | 'max-output'): number | undefined => {
    const raw = values[flag] as string | undefined;
    if (raw === undefined) return undefined;
    const n = Number(raw.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number of tokens (got ${raw})`);
    return n;
  };
  const contextWindow = read('context-window');
  const maxOutputTokens = read('max-output');
  if (contextWindow !== undefined && maxOutputTokens !== undefined && maxOutputTokens >= contextWindow) {
    throw new UsageError(`--max-output ${maxOutputTokens} leaves no room for the prompt in --context-window ${contextWindow}`);
  }
  return { ...(contextWindow !== undefined ? { contextWindow } : {}), ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) };
}

function approvalPolicy(values: ParsedCli['values']): ApprovalPolicyName | undefined {
  const value = values['approval'] as string | undefined;
  if (value === undefined) return undefined;
  if (value !== 'ask' && value !== 'allow' && value !== 'deny') throw new UsageError(`--approval must be ask, allow or deny (got ${value})`);
  return value;
}

function dataDirOf(values: ParsedCli['values']): string {
  return (values['data-dir'] as string | undefined) ?? defaultDataDir();
}

/** The CLI's approval policy: --approval, else cli.json, else ask (never the UI's setting). */
function cliApproval(values: ParsedCli['values']): CliApproval {
  return resolveCliApproval(approvalPolicy(values), dataDirOf(values));
}

/**
 * The whole engine (agent, model client, tools, MCP), loaded only by the commands that use it.
 * `scope: 'cli'` (every command but serve) runs with the CLI's approval policy; `'ui'` (serve) with
 * the UI's setting unless --approval is given.
 */
async function open(values: ParsedCli['values'], extra: { approvalAnswerer?: ApprovalAnswerer; scope?: 'cli' | 'ui' } = {}): Promise<Runtime> {
  const { scope = 'cli', ...rest } = extra;
  const approval = scope === 'cli' ? cliApproval(values).policy : approvalPolicy(values);
  const active = modelOverrides(values);
  const limits = limitOverrides(values);
  const { createRuntime } = await import('./host/runtime.js');
  const mcpConfigFiles = (values['mcp-config'] as unknown as string[] | undefined) ?? [];
  const budget = budgetFromFlags(values);
  const overrides = cliPriceOverrides(dataDirOf(values));
  return createRuntime({
    dataDir: dataDirOf(values),
    pricing: { overrides, ...(budget ? { budget } : {}) },
    overrides: { ...(Object.keys(active).length > 0 ? { active } : {}), ...(approval ? { approvalPolicy: approval } : {}), ...(Object.keys(limits).length > 0 ? { limits } : {}) },
    ...(mcpConfigFiles.length > 0 ? { mcpConfigFiles } : {}),
    ...rest,
  });
}

/** Refuses to start a turn that can only fail for lack of a key or a model. */
function checkModelReady(runtime: Runtime): void {
  const { provider, model, baseUrl } = runtime.settings.active;
  const preset = providerPreset(provider);
  if (model.trim() === '') throw new UsageError(`no model is set for ${preset.label}: pass --model`);
  if (baseUrl.trim() === '') throw new UsageError('no base URL is set: pass --base-url');
  try {
    thinkingFields(dialectOf(runtime.settings.providerSettings()), runtime.settings.active.reasoningEffort);
  } catch (error) {
    if (error instanceof LlmConfigurationError) throw new UsageError(error.message);
    throw error;
  }
  const withheld = runtime.settings.keyWithheldReason();
  if (withheld !== undefined) {
    throw new UsageError(`${visibleInline(withheld)}. Pass --base-url ${visibleInline(baseUrl)} (with --provider ${visibleInline(provider)}) to send it there, or --provider ${visibleInline(provider)} alone to use ${preset.baseUrl || 'its endpoint'}.`);
  }
  if (preset.requiresApiKey && runtime.settings.apiKey(provider) === undefined) {
    throw new UsageError(
      `no API key for ${preset.label}: set ${preset.apiKeyEnv ?? 'the API key'} in the environment` +
        ` (or use --base-url with a local OpenAI-compatible server such as Ollama).`,
    );
  }
}

/** Carries "the terminal hung up" from the approval prompt to the running turn's stop handling. */
class HangupRelay {
  private handler: (() => void) | undefined;
  /** Set (or clear) what a hang-up does. */
  on(handler: (() => void) | undefined): void {
    this.handler = handler;
  }
  raise(): void {
    this.handler?.();
  }
}

async function runTurn(
  runtime: Runtime,
  printer: TimelineText,
  sessionId: string,
  text: string,
  options: { readonly takeOver?: boolean; readonly hangup?: HangupRelay } = {},
): Promise<number> {
  const write = (s: string) => {
    if (s !== '') stdout.write(s);
  };
  // Live output arrives through the host's feed; events are printed straight from the session,
  // synchronously, so an approval prompt always comes after the tool call it is about.
  const connection = runtime.host.connect((push) => {
    if (push.kind === 'tool/output') {
      printer.markStreamed(push.callId);
      write(printer.interject(printer.dim(visibleText(push.text))));
    }
  });
  const loaded = runtime.repository.load(sessionId);
  if (loaded.repaired > 0) write(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
  for (const left of loaded.leftovers) write(`! ${leftoverNotice(left)}\n`);
  const agent = runtime.host.ensureAgent(sessionId, options.takeOver ? { takeOver: true } : {});
  for (const event of agent.session.eventsFrom(loaded.events.length)) write(printer.render(event));
  let subscription = agent.session.onDidAppend((event) => write(printer.render(event)));
  // Taken over by `resume --take-over` elsewhere: this process's later events are not stored, so
  // nothing more is printed as if it happened; the cause is said once at the end (exit 1).
  let claimLost: unknown;
  const claimWatch = runtime.repository.onDidLoseClaim((lost) => {
    if (lost.sessionId !== sessionId || claimLost !== undefined) return;
    claimLost = lost.error;
    processLog.mute();
    subscription.dispose();
    subscription = { dispose: () => undefined };
  });
  // A write the store refused (a full disk): a turn that then fails failed because of it.
  let writeFailure: unknown;
  const writeWatch = runtime.repository.onDidFailWrite((failed) => {
    if (failed.sessionId === sessionId) writeFailure ??= failed.failure.error;
  });
  const mcpStatus = runtime.host.options.mcp ? printMcpStatus(runtime.host.options.mcp, workspaceOf(loaded.record.header.cwd), (line) => write(printer.interject(printer.dim(visibleText(line))))) : undefined;
  const turnBefore = agent.session.lastTurn;
  // Ctrl+C cancels (twice quits); SIGTERM / SIGHUP cancel with the signal as the cause, then the
  // closers are logged and the session flushed before the command exits 128 + n.
  const stops = listenForStopSignals({
    onInterrupt: () => {
      write(printer.interject('! cancelling the turn (Ctrl+C again to quit now)\n'));
      agent.cancel({ kind: 'user' });
    },
    onStop: (signal) => {
      write(printer.interject(`! ${signal}: cancelling the turn and saving the session\n`));
      agent.cancel({ kind: 'signal', signal });
    },
  });
  options.hangup?.on(() => stops.raise('SIGHUP'));
  try {
    connection.followup({ sessionId, text });
    await agent.whenIdle();
    await new Promise((r) => setImmediate(r));
  } finally {
    options.hangup?.on(undefined);
    stops.dispose();
    mcpStatus?.dispose();
    subscription.dispose();
    claimWatch.dispose();
    writeWatch.dispose();
    connection.dispose();
  }
  if (claimLost !== undefined) {
    stderr.write(reportError(claimLost).text);
    return 1;
  }
  if (stops.received !== undefined) return SIGNAL_EXIT_CODES[stops.received];
  const ends = agent.session.eventsFrom(0).filter((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end' && e.data.turn > turnBefore);
  const last = ends[ends.length - 1];
  if (!last) return 1;
  const reason = last.data.reason;
  if (reason.kind === 'error' && writeFailure !== undefined) {
    // The turn failed because the session could not be saved, not because of the model.
    stderr.write(reportError(writeFailure).text);
    return 1;
  }
  if (reason.kind === 'error') {
    const hint =
      reason.failure.code === 'AUTH'
        ? ' Check the API key.'
        : reason.failure.code === 'TRANSPORT'
          ? ' Check the base URL and that the server is running.'
          : reason.failure.code === 'MISSING_CREDENTIAL'
            ? ' Set the provider\'s API key environment variable.'
            : '';
    stderr.write(`forkline: the model request failed — ${describeReason(reason)}.${hint}\n`);
  }
  return reason.kind === 'completed' ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const cli = parse(argv);
  const color = process.stdout.isTTY === true && cli.values['no-color'] !== true && !process.env['NO_COLOR'];
  const out = (s: string) => stdout.write(s);
  switch (cli.command) {
    case 'help': {
      const approval = cliApproval(cli.values);
      out(`${USAGE}\n\nApproval policy in force for run and resume: ${approval.policy}, from ${visibleInline(approval.source)}.\n`);
      return 0;
    }
    case '':
      stderr.write(`${USAGE}\n`);
      return EXIT_USAGE;
    case 'run': {
      const task = cli.positionals.join(' ').trim();
      const cwd = cli.values['cwd'] as string | undefined;
      if (!task) throw new UsageError('run needs a task, e.g. forkline run --cwd . "make the tests pass"');
      if (!cwd) throw new UsageError('run needs --cwd DIR (the workspace folder)');
      if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd} does not exist`);
      if (!statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is a file, not a folder (the workspace is a folder)`);
      const printer = new TimelineText({ live: true, color });
      const hangup = new HangupRelay();
      const runtime = await open(cli.values, { approvalAnswerer: terminalAnswerer({ printer, color, stdout, onHangup: () => hangup.raise() }) });
      try {
        checkModelReady(runtime);
        const connection = runtime.host.connect(() => undefined);
        const session = connection.createSession({ cwd: realpathSync(resolve(cwd)) });
        connection.dispose();
        out(`session ${session.id}\n`);
        const code = await runTurn(runtime, printer, session.id, task, { hangup });
        out(`\nsession ${session.id}\n`);
        return code;
      } finally {
        await runtime.close();
      }
    }
    case 'resume': {
      const [id, ...rest] = cli.positionals;
      const text = rest.join(' ').trim();
      if (!id || !text) throw new UsageError('resume needs a session id and a follow-up, e.g. forkline resume ID "now add tests"');
      const printer = new TimelineText({ live: true, color });
      const hangup = new HangupRelay();
      const runtime = await open(cli.values, { approvalAnswerer: terminalAnswerer({ printer, color, stdout, onHangup: () => hangup.raise() }) });
      try {
        let sessionId = resolveSessionId(runtime, id);
        const cwdFlag = cli.values['cwd'] as string | undefined;
        const record = runtime.repository.get(sessionId)!;
        if (isImportedSession(record.header)) {
          // Nothing from a file is used to act (issue 8): the folder must be named here, and the
          // imported log stays as it was read; the work continues in a native fork of it.
          if (!cwdFlag) {
            throw new UsageError(
              `session ${sessionId} was imported from a file, so the folder and endpoint its log names are not used. Pass --cwd DIR to continue it in a folder you choose (as a new session forked from it; the imported log is kept as it is).`,
            );
          }
          if (!existsSync(cwdFlag)) throw new UsageError(`--cwd ${cwdFlag} does not exist`);
          checkModelReady(runtime);
          runtime.repository.load(sessionId);
          const connection = runtime.host.connect(() => undefined);
          const child = await connection.forkSession({ sessionId, cwd: resolve(cwdFlag) });
          connection.dispose();
          stderr.write(`continuing imported session ${sessionId} as new session ${child.id} in ${visibleInline(child.cwd ?? '')}\n`);
          sessionId = child.id;
        } else if (cwdFlag !== undefined) {
          throw new UsageError('--cwd is only for continuing an imported session; a session recorded here keeps its own folder');
        } else if (Object.keys(modelOverrides(cli.values)).length === 0) {
          // No model flags: continue on the route the session last used (provider, endpoint, model),
          // as recorded by this installation (never a route from an imported prefix).
          const from = recordedHereFrom(runtime.repository, sessionId);
          const route = Number.isFinite(from) ? lastRoute(runtime.store.readFrom(sessionId, from)) : undefined;
          if (route) runtime.settings.useForThisRun({ ...runtime.settings.active, ...route });
        }
        checkModelReady(runtime);
        const code = await runTurn(runtime, printer, sessionId, text, { takeOver: cli.values['take-over'] === true, hangup });
        out(`\nsession ${sessionId}\n`);
        return code;
      } finally {
        await runtime.close();
      }
    }
    case 'serve': {
      const runtime = await open(cli.values, { scope: 'ui' });
      const port = cli.values['port'] !== undefined ? Number(cli.values['port']) : 0;
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
      const staticDir = rendererDir();
      const { startBrowserServer } = await import('./host/transport/ws-server.js');
      if (!existsSync(join(staticDir, 'index.html'))) {
        await runtime.close();
        throw new UsageError(`the renderer is not built (${staticDir}/index.html is missing): run npm run build:renderer first`);
      }
      let server;
      try {
        server = await startBrowserServer({ host: runtime.host, staticDir, port });
      } catch (error) {
        await runtime.close();
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is already in use: pick another with --port, or omit it for a free one`);
        throw error;
      }
      out(`Forkline browser mode: ${server.url}\n(data: ${runtime.dataDir}; Ctrl+C to stop)\n`);
      // Ctrl+C, SIGTERM and SIGHUP stop the server the same way: running turns are cancelled with
      // the signal as their cause, their closers logged and every session flushed; then exit 0.
      let stops: ReturnType<typeof listenForStopSignals> | undefined;
      const signal = await new Promise<StopSignal>((resolveStop) => {
        stops = listenForStopSignals({ onStop: resolveStop });
      });
      await server.close();
      await runtime.close({ kind: 'signal', signal });
      stops?.dispose();
      return 0;
    }
    case 'ls': {
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        const rows = runtime.repository.list();
        if (cli.values['json']) {
          const book = cliPriceBook(dataDirOf(cli.values));
          out(jsonLine(rows.map((r) => ({ ...sessionListEntry(r), cost: sessionCostJson(runtime.repository.store.readAll(r.header.id), book) }))));
          return 0;
        }
        if (rows.length === 0) out('no sessions yet\n');
        for (const r of rows) {
          const lineage = r.header.parentSession ? `  ⑂ ${r.header.parentSession.slice(0, 8)}` : '';
          const imported = isImportedSession(r.header) ? '  (imported)' : '';
          out(`${visibleInline(r.header.id)}  ${new Date(r.updatedAt).toISOString()}  ${String(r.eventCount).padStart(6)} events  ${visibleInline(r.header.title ?? '(untitled)')}${visibleInline(lineage)}${imported}\n`);
        }
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'show': {
      const [id] = cli.positionals;
      if (!id) throw new UsageError('show needs a session id');
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        const loaded = runtime.repository.load(resolveSessionId(runtime, id));
        if (cli.values['json']) {
          out(jsonLine({ ...sessionShowJson(loaded.record, loaded.events, loaded.repaired), cost: sessionCostJson(loaded.events, cliPriceBook(dataDirOf(cli.values)), { turns: true }) }));
          return 0;
        }
        const h = loaded.record.header;
        const origin = h.origin?.kind === 'imported' ? `\nimported from ${visibleInline(h.origin.file ?? 'a file')} (${visibleInline(h.origin.format)}): shown only; nothing in it is used to act` : '';
        out(`session ${visibleInline(h.id)}${h.title ? ` — ${visibleInline(h.title)}` : ''}\nworkspace ${visibleInline(h.cwd ?? '(none)')}${h.parentSession ? `\nforked from ${visibleInline(h.parentSession)} after seq ${(h.seedLength ?? 1) - 1}` : ''}${origin}\n`);
        if (loaded.repaired > 0) out(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
        for (const left of loaded.leftovers) out(`! ${leftoverNotice(left)}\n`);
        if (loaded.ownedElsewhere) out('! another running Forkline holds this session: shown as stored (an unfinished turn is not closed here)\n');
        const book = cliPriceBook(dataDirOf(cli.values));
        const printer = new TimelineText({
          live: false,
          color,
          seqs: true,
          ...(h.parentSession !== undefined && h.seedLength !== undefined ? { forkSeq: h.seedLength } : {}),
          fallbackPrice: book.fallback,
        });
        for (const event of loaded.events) out(printer.render(event));
        const cost = sessionCost(loaded.events, { fallback: book.fallback });
        if (cost.responses.length > 0) out(`session cost: ${totalText(cost.total)} · ${tokenText(cost.total)}${cost.snapshots.length > 0 ? ` · prices ${cost.snapshots.join(', ')}` : ''}\n`);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'fork': {
      const [id] = cli.positionals;
      if (!id) throw new UsageError('fork needs a session id');
      const at = cli.values['at'] !== undefined ? Number(cli.values['at']) : undefined;
      if (at !== undefined && (!Number.isInteger(at) || at < 0)) throw new UsageError('--at must be a seq (a non-negative integer)');
      const dir = cli.values['cwd'] as string | undefined;
      if (dir !== undefined && cli.values['worktree']) throw new UsageError('fork takes --worktree or --cwd DIR, not both');
      if (dir !== undefined && !existsSync(dir)) throw new UsageError(`--cwd ${dir} does not exist`);
      const runtime = await open(cli.values);
      try {
        const connection = runtime.host.connect(() => undefined);
        const sessionId = resolveSessionId(runtime, id);
        const source = runtime.repository.get(sessionId);
        if (source?.header.origin?.kind === 'imported' && dir === undefined) {
          throw new UsageError(`${sessionId} was imported (${visibleInline(source.header.origin.format)}); continue it in a folder of yours: forkline fork ${sessionId.slice(0, 8)} --cwd DIR`);
        }
        const child = await connection.forkSession({
          sessionId,
          ...(at !== undefined ? { atSeq: at } : {}),
          ...(cli.values['worktree'] ? { worktree: true } : {}),
          ...(dir !== undefined ? { cwd: realpathSync(resolve(dir)) } : {}),
        });
        connection.dispose();
        out(`${child.id}\n`);
        const boundary = (child.seedLength ?? 0) - 1;
        const turn = runtime.store.readRange(child.id, boundary, boundary + 1)[0];
        const turnText = turn?.type === 'turn/end' ? `turn ${turn.data.turn} (seq ${boundary})` : `seq ${boundary}`;
        stderr.write(
          at === undefined
            ? `forked after ${turnText}, the last completed turn\n`
            : at === boundary
              ? `forked after ${turnText}\n`
              : `forked after ${turnText}: --at ${at} is after that turn ended and before the next one started\n`,
        );
        if (cli.values['worktree'] || cli.values['cwd'] !== undefined) stderr.write(`workspace: ${visibleInline(child.cwd ?? '(none)')}\n`);
        if (source?.header.origin?.kind === 'imported') stderr.write(`continue it: forkline resume ${visibleInline(child.id.slice(0, 8))} "your next message"\n`);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'compare': {
      const [a, b] = cli.positionals;
      if (!a || !b) throw new UsageError('compare needs two session ids');
      const runtime = await open(cli.values);
      try {
        if (cli.values['json'] || cli.positionals.length > 2) return await (await import('./cli/commands/fanout.js')).compareRankedCommand(commandContext(runtime), cli.positionals, cli.values['json'] === true);
        const connection = runtime.host.connect(() => undefined);
        const result = await connection.compareSessions({ a: resolveSessionId(runtime, a), b: resolveSessionId(runtime, b) });
        connection.dispose();
        if (cli.values['json']) {
          // Figures per branch since the common history, cost included (stats.costUsd: absent when a price is unknown).
          out(jsonLine({ commonLength: result.commonLength, a: result.a, b: result.b, files: result.files, ...(result.diffNote ? { diffNote: result.diffNote } : {}) }));
          return 0;
        }
        out(`common history: ${result.commonLength} events\n`);
        for (const side of [result.a, result.b]) {
          const s = side.stats;
          out(`\n${visibleInline(side.sessionId)}  ${visibleInline(side.title ?? '')}\n  first prompt: ${visibleInline(s.firstPrompt ?? '(none)')}\n  ${count(s.turns, 'turn')}, ${count(s.steps, 'step')}, ${count(s.toolCalls, 'tool call')}, ${(s.durationMs / 1000).toFixed(1)} s\n  tokens: input ${s.inputTokens + s.cacheReadTokens} (${s.cacheReadTokens} cached), output ${s.outputTokens}${s.reasoningTokens ? ` (${s.reasoningTokens} reasoning)` : ''}\n  cost: ${s.costUsd !== undefined ? formatUsd(s.costUsd) : 'price unknown'}\n  last turn: ${visibleInline(String(s.lastTurnEnd ?? '(none)'))}\n`);
        }
        out(`\nfiles that differ (${result.files.length}):\n${result.files.map((f) => `  ${visibleInline(f.status)} ${visibleInline(f.path)}`).join('\n')}\n`);
        if (result.diffNote) out(`(${visibleInline(result.diffNote)})\n`);
        if (result.diff) out(`\n${visibleText(result.diff)}`);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'fanout':
    case 'apply':
    case 'rewind':
      return issue21Command(cli, color);
    case 'export': {
      const [id] = cli.positionals;
      if (!id) throw new UsageError('export needs a session id');
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        // Streamed page by page with backpressure: memory does not grow with the session (export-stream.ts).
        const sessionId = resolveSessionId(runtime, id);
        const file = cli.values['out'] as string | undefined;
        if (file) {
          const output = openOutputFile(file);
          try {
            await streamExport(runtime.repository, sessionId, output);
          } finally {
            output.close();
          }
        } else {
          await streamExport(runtime.repository, sessionId, { write: (text) => stdout.writeAsync(text), get open() { return stdout.open; } });
        }
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'price': {
      const [id] = cli.positionals;
      if (!id) throw new UsageError('price needs a session id, e.g. forkline price ID --as openai:gpt-5');
      const book = cliPriceBook(dataDirOf(cli.values));
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        const loaded = runtime.repository.load(resolveSessionId(runtime, id));
        const as = cli.values['as'] as string | undefined;
        const h = loaded.record.header;
        out(priceCommand({ sessionId: h.id, ...(h.title !== undefined ? { title: h.title } : {}), events: loaded.events, book, ...(as !== undefined ? { as } : {}), json: cli.values['json'] === true }));
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'replay': {
      const [target] = cli.positionals;
      if (!target) throw new UsageError('replay needs a session id or a JSONL export');
      const { replayCommand } = await import('./cli/commands/replay.js');
      return replayCommand({ target, dataDir: dataDirOf(cli.values), json: cli.values['json'] === true, liveTools: cli.values['live-tools'] === true, openStore: () => openStoredSessions(dataDirOf(cli.values)), resolveId: resolveSessionId, write: out });
    }
    case 'models': {
      const runtime = await open(cli.values);
      try {
        const { provider, baseUrl } = runtime.settings.active;
        if (baseUrl.trim() === '') throw new UsageError('no base URL: pass --base-url URL (or --provider P)');
        const listing = await runtime.host.listModels({ provider, baseUrl });
        out(`${providerPreset(provider).label} — ${baseUrl}\n`);
        if (listing.models.length === 0) out('no models listed\n');
        const width = Math.min(60, Math.max(5, ...listing.models.map((m) => m.id.length)));
        if (listing.models.length > 0) out(`${'model'.padEnd(width)}  ${'context'.padStart(9)}  ${'max out'.padStart(9)}\n`);
        for (const m of listing.models) {
          out(`${m.id.padEnd(width)}  ${(m.contextWindow !== undefined ? String(m.contextWindow) : '?').padStart(9)}  ${(m.maxOutput !== undefined ? String(m.maxOutput) : '?').padStart(9)}\n`);
        }
        out(`(numbers from: ${listing.source || 'nothing the endpoint published'}; ? = not published: pass --context-window N)\n`);
        return listing.models.length > 0 ? 0 : 1;
      } finally {
        await runtime.close();
      }
    }
    case 'import': {
      const files = cli.positionals;
      if (files.length === 0) throw new UsageError('import needs one or more session log files');
      for (const file of files) if (!existsSync(file)) throw new UsageError(`no file ${file}`);
      for (const file of files) {
        const stat = statSync(file);
        // A FIFO or device could block or never end: only regular files (and session folders); the size is capped before reading.
        if (!stat.isFile() && !stat.isDirectory()) throw new UsageError(`${file} is not a regular file`);
        if (stat.isFile()) checkFileSize(stat.size);
      }
      // Importing needs only the store: none of the agent, model client, tools or MCP is loaded.
      const runtime = openStoredSessions(dataDirOf(cli.values));
      // An import an earlier process did not finish (killed mid-way) is removed; the file can be imported again.
      runtime.repository.removeAbandonedImports();
      let failed = 0;
      let badInput = 0;
      const { importSources } = await import('./host/services/folder-import.js');
      try {
        for (const [i, file] of files.entries()) {
          if (i > 0) out('\n');
          try {
            // A file, or a folder of JSON files (Cline / Roo Code task, opencode storage): one import per session.
            for (const [j, source] of importSources(file).entries()) {
              if (j > 0) out('\n');
              const summary = await importFile(runtime, source);
              out(`${visibleText(formatImportSummary(summary).join('\n'))}\n`);
            }
          } catch (error) {
            if (!ForklineError.isInstance(error)) throw error;
            failed++;
            if (isInputError(error)) badInput++;
            stderr.write(`forkline: ${visibleInline(file)}: ${visibleInline(error.message)} [${error.code}]\n`);
          }
        }
        // 2 when every failure was a file we cannot read as a session; 1 when something else failed.
        return failed === 0 ? 0 : badInput === failed ? EXIT_USAGE : 1;
      } finally {
        await runtime.close();
      }
    }
    default:
      throw new UsageError(unknownCommandMessage(cli.command, COMMANDS));
  }
}

/** What the commands in cli/commands/ need from here. */
function commandContext(runtime: Runtime): CommandContext {
  return { runtime, resolveId: (id) => resolveSessionId(runtime, id), out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };
}

/** A whole number of at least `min` from a flag, or undefined when absent. @throws UsageError */
function intFlag(values: ParsedCli['values'], flag: string, min: number): number | undefined {
  const raw = values[flag] as string | undefined;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${flag} must be a whole number of at least ${min} (got ${raw})`);
  return n;
}

/** fanout, apply, rewind (issue 21; their work is in cli/commands/fanout.ts). */
async function issue21Command(cli: ParsedCli, color: boolean): Promise<number> {
  const [id, ...rest] = cli.positionals;
  if (!id) throw new UsageError(`${cli.command} needs a session id`);
  const { applyCommand, cleanupCommand, fanoutCommand, rewindCommand } = await import('./cli/commands/fanout.js');
  if (cli.command === 'apply') {
    const runtime = await open(cli.values);
    try {
      return await applyCommand(commandContext(runtime), id, cli.values['json'] === true);
    } finally {
      await runtime.close();
    }
  }
  if (cli.command === 'rewind') {
    const to = intFlag(cli.values, 'to', 0);
    if (to === undefined) throw new UsageError('rewind needs --to SEQ (the seq of a turn end, as forkline show prints it)');
    const runtime = await open(cli.values);
    try {
      return await rewindCommand(commandContext(runtime), id, to);
    } finally {
      await runtime.close();
    }
  }
  if (cli.values['cleanup']) {
    const runtime = await open(cli.values);
    try {
      return await cleanupCommand(commandContext(runtime), id, (cli.values['keep'] as unknown as string[] | undefined) ?? []);
    } finally {
      await runtime.close();
    }
  }
  const prompt = rest.join(' ').trim();
  const variants = (cli.values['variant'] as unknown as string[] | undefined) ?? [];
  if (!prompt && variants.some((v) => !/(^|,)prompt=/.test(v))) throw new UsageError('fanout needs a prompt (or prompt=… in every --variant), e.g. forkline fanout ID --variant model=A --variant model=B "fix the failing test"');
  const at = intFlag(cli.values, 'at', 0);
  const timeout = intFlag(cli.values, 'check-timeout', 1);
  const concurrency = intFlag(cli.values, 'concurrency', 1);
  const printer = new TimelineText({ live: false, color });
  // A terminal that hangs up during an approval is a SIGHUP for every branch (fanoutCommand listens for it).
  const onHangup = (): void => void process.emit('SIGHUP', 'SIGHUP');
  const runtime = await open(cli.values, { approvalAnswerer: terminalAnswerer({ printer, color, stdout, onHangup }) });
  try {
    checkModelReady(runtime);
    return await fanoutCommand(commandContext(runtime), {
      id,
      prompt,
      variants,
      json: cli.values['json'] === true,
      ...(at !== undefined ? { atSeq: at } : {}),
      ...(cli.values['check'] !== undefined ? { check: cli.values['check'] as string } : {}),
      ...(timeout !== undefined ? { checkTimeoutMs: timeout * 1000 } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
    });
  } finally {
    await runtime.close();
  }
}

/**
 * A session id from a full id or a unique prefix of any length (cli/id-prefix.ts).
 * @throws SessionIdError when none or several sessions match (listing the candidates).
 */
function resolveSessionId(runtime: { readonly repository: Runtime['repository'] }, idOrPrefix: string): string {
  const repository = runtime.repository;
  return resolveSessionPrefix(
    idOrPrefix,
    (id) => repository.get(id) !== undefined,
    () => repository.list().map((r) => ({ id: r.header.id, ...(r.header.title !== undefined ? { title: r.header.title } : {}), updatedAt: r.updatedAt })),
  );
}

/** Streams one file or folder session through the import pipeline (constant memory) and returns its summary. */
async function importFile(runtime: { readonly repository: Runtime['repository'] }, source: ImportSource): Promise<ImportSummary> {
  // Loaded here, not at the top: commands that only read the store (ls, show) load no importer code.
  const { beginImport } = await import('./host/services/session-imports.js');
  const job = beginImport(runtime.repository, source.fileName);
  try {
    for await (const chunk of source.chunks()) job.write(chunk);
    return job.end();
  } catch (error) {
    job.abort();
    throw error;
  }
}

/** The route (provider, endpoint, model, effort) of a session's last request, if it logged one. */
function lastRoute(events: readonly SessionEvent[]): ProviderChoice | undefined {
  const context = events.findLast((e): e is SessionEvent<'request/context'> => e.type === 'request/context' && e.data.baseUrl !== undefined);
  if (!context || context.data.baseUrl === undefined) return undefined;
  const header = events.findLast((e): e is SessionEvent<'request/header'> => e.type === 'request/header');
  const effort = header?.data.header.config.reasoningEffort;
  return { provider: context.data.provider, baseUrl: context.data.baseUrl, model: context.data.model, ...(effort !== undefined ? { reasoningEffort: effort } : {}) };
}

/** The workspace folder as the host keys it (its real path). */
function workspaceOf(cwd: string | undefined): string {
  try {
    return realpathSync(cwd ?? '.');
  } catch {
    return cwd ?? '';
  }
}

/**
 * The built renderer folder: dist/renderer at the package root, found by walking up from this file
 * (electron/cli.ts from source, dist/cli/forkline.js from the bundle).
 */
function rendererDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'renderer');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'renderer');
}

const ending = { beforeExit: () => terminals.releaseDead() };
main(process.argv.slice(2)).then(
  (code) => {
    processLog.flush();
    return exitWhenWritten(code, ending);
  },
  (error: unknown) => {
    // One line with the error's code, never a stack trace (FORKLINE_DEBUG=1 adds it); messages may
    // quote values from a file or a server, so control characters are made visible.
    const report = reportError(error, process.env['FORKLINE_DEBUG'] === '1');
    processLog.flush();
    stderr.write(report.text);
    return exitWhenWritten(report.exitCode, ending);
  },
);

/** `1 turn`, `2 turns`. */
function count(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}
