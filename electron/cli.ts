/**
 * `forkline` — the headless entry (DESIGN §2): run, resume, serve, ls, show, fork, export, import.
 * Plain Node (no Electron). Every command opens the same SQLite store as the desktop app.
 * Bundled ahead of time (scripts/build-cli.js → dist/cli); the agent, model client, tools and MCP
 * load only for the commands that need them, so `ls`, `show` and `help` start at once.
 *
 * Exit codes (cli/exit-codes.ts): 0 success; 1 the turn ended without completing (error, cancel,
 * max-tokens) or a command failed; 2 bad usage, configuration or input.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ProviderChoice } from '../shared/api.js';
import { ForklineError } from '../shared/errors.js';
import type { ApprovalOutcome, ApprovalPolicyName, SessionEvent } from '../shared/events.js';
import type { ApprovalAnswerer } from './agent/approval-gate.js';
import { EXIT_USAGE, isInputError } from './cli/exit-codes.js';
import { resolveSessionPrefix, SessionIdError } from './cli/id-prefix.js';
import { jsonLine, sessionListEntry, sessionShowJson } from './cli/json-output.js';
import { printMcpStatus } from './cli/mcp-status.js';
import { unknownCommandMessage, unknownOptionMessage } from './cli/option-suggest.js';
import { OutputPathError, writeOutputFile } from './cli/output-file.js';
import { openStoredSessions } from './cli/stored-sessions.js';
import { describeReason, TimelineText } from './cli/timeline-text.js';
import { defaultDataDir } from './host/data-dir.js';
import type { Runtime } from './host/runtime.js';
import { dialectOf, providerPreset } from './llm/providers.js';
import { LlmConfigurationError, thinkingFields } from './llm/reasoning-effort.js';

const USAGE = `forkline — a coding agent whose sessions are append-only event logs

Usage:
  forkline run --cwd DIR [options] "task"      run one task in DIR and stream the turn
  forkline resume ID [options] "follow-up"     continue a stored session
  forkline serve [--port N]                    browser mode: serve the UI on 127.0.0.1
  forkline ls [--json]                         list stored sessions
  forkline show ID [--json]                    print a session's timeline
  forkline fork ID [--at SEQ] [--worktree]     fork a session at a completed turn (--worktree: in its own
                                               folder restored to the workspace as it was then)
  forkline compare A B                         compare two branches: turns, tokens, time, file diff
  forkline export ID [--out FILE]              write a session as JSONL (stdout by default)
  forkline import FILE                         import a JSONL session file

Model options (run, resume, serve):
  --provider deepseek|openai|openrouter|ollama|custom   (default: deepseek, or custom with --base-url)
  --base-url URL     any OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1
  --model M          model id (default: the provider's default, deepseek-v4-flash)
  --effort E         reasoning effort (DeepSeek: off|low|high|max)
  --approval ask|allow|deny   shell commands and file writes (default: ask; with no terminal, ask denies)
  --mcp-config FILE  MCP servers ({"mcpServers": {...}}) for this run; repeatable
Other:
  --data-dir DIR     where sessions are stored (default: ${defaultDataDir()})
  --json             ls, show: one JSON document on stdout (see the README)

Session ids may be shortened to any unique prefix. Exit codes: 0 success, 1 the turn did not
complete or the command failed, 2 bad usage, configuration or input.

Keys: DEEPSEEK_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY from the environment.`;

class UsageError extends Error {}

const COMMANDS = ['run', 'resume', 'serve', 'ls', 'show', 'fork', 'compare', 'export', 'import', 'help'] as const;

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
  approval: { type: 'string' },
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  at: { type: 'string' },
  out: { type: 'string' },
  worktree: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  json: { type: 'boolean' },
  'mcp-config': { type: 'string', multiple: true },
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

function approvalPolicy(values: ParsedCli['values']): ApprovalPolicyName | undefined {
  const value = values['approval'] as string | undefined;
  if (value === undefined) return undefined;
  if (value !== 'ask' && value !== 'allow' && value !== 'deny') throw new UsageError(`--approval must be ask, allow or deny (got ${value})`);
  return value;
}

/** Asks on the terminal; with no terminal, answers `unavailable` and says how to allow. */
function terminalAnswerer(printer: TimelineText): ApprovalAnswerer {
  return async (question, signal): Promise<ApprovalOutcome> => {
    if (!process.stdin.isTTY) {
      process.stdout.write(printer.interject(`! ${question.toolName} needs approval, but there is no terminal to ask. Re-run with --approval allow to let it run (or --approval deny to skip such calls).\n`));
      return 'unavailable';
    }
    // terminal: false keeps readline from redrawing (and erasing) the current line.
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
    try {
      process.stdout.write(printer.interject(`? Allow ${question.toolName} ${summarizeForPrompt(question.arguments)} (${question.reason})? [y/N] `));
      const answer = await rl.question('', { signal });
      return /^y(es)?$/i.test(answer.trim()) ? 'allowed-once' : 'rejected';
    } catch {
      return 'cancelled';
    } finally {
      rl.close();
    }
  };
}

function summarizeForPrompt(raw: string): string {
  try {
    const args = JSON.parse(raw) as Record<string, unknown>;
    if (typeof args['command'] === 'string') return `\`${args['command']}\``;
    if (typeof args['path'] === 'string') return args['path'];
  } catch {
    // fall through
  }
  return raw.slice(0, 200);
}

/** The whole engine (agent, model client, tools, MCP), loaded only by the commands that use it. */
async function open(values: ParsedCli['values'], extra: { approvalAnswerer?: ApprovalAnswerer } = {}): Promise<Runtime> {
  const approval = approvalPolicy(values);
  const active = modelOverrides(values);
  const { createRuntime } = await import('./host/runtime.js');
  const mcpConfigFiles = (values['mcp-config'] as unknown as string[] | undefined) ?? [];
  return createRuntime({
    dataDir: dataDirOf(values),
    overrides: { ...(Object.keys(active).length > 0 ? { active } : {}), ...(approval ? { approvalPolicy: approval } : {}) },
    ...(mcpConfigFiles.length > 0 ? { mcpConfigFiles } : {}),
    ...extra,
  });
}

function dataDirOf(values: ParsedCli['values']): string {
  return (values['data-dir'] as string | undefined) ?? defaultDataDir();
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
  if (preset.requiresApiKey && runtime.settings.apiKey(provider) === undefined) {
    throw new UsageError(
      `no API key for ${preset.label}: set ${preset.apiKeyEnv ?? 'the API key'} in the environment` +
        ` (or use --base-url with a local OpenAI-compatible server such as Ollama).`,
    );
  }
}

async function runTurn(runtime: Runtime, printer: TimelineText, sessionId: string, text: string): Promise<number> {
  const write = (s: string) => {
    if (s !== '') process.stdout.write(s);
  };
  // Live output arrives through the host's feed; events are printed straight from the session,
  // synchronously, so an approval prompt always comes after the tool call it is about.
  const connection = runtime.host.connect((push) => {
    if (push.kind === 'tool/output') {
      printer.markStreamed(push.callId);
      write(printer.interject(printer.dim(push.text)));
    }
  });
  const loaded = runtime.repository.load(sessionId);
  if (loaded.repaired > 0) write(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
  const agent = runtime.host.ensureAgent(sessionId);
  for (const event of agent.session.eventsFrom(loaded.events.length)) write(printer.render(event));
  const subscription = agent.session.onDidAppend((event) => write(printer.render(event)));
  const mcpStatus = runtime.host.options.mcp ? printMcpStatus(runtime.host.options.mcp, workspaceOf(loaded.record.header.cwd), (line) => write(printer.interject(printer.dim(line)))) : undefined;
  const turnBefore = agent.session.lastTurn;
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      write(printer.interject('! cancelling the turn (Ctrl+C again to quit now)\n'));
      agent.cancel({ kind: 'user' });
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    connection.followup({ sessionId, text });
    await agent.whenIdle();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('SIGINT', onSigint);
    mcpStatus?.dispose();
    subscription.dispose();
    connection.dispose();
  }
  const ends = agent.session.eventsFrom(0).filter((e): e is SessionEvent<'turn/end'> => e.type === 'turn/end' && e.data.turn > turnBefore);
  const last = ends[ends.length - 1];
  if (!last) return 1;
  const reason = last.data.reason;
  if (reason.kind === 'error') {
    const hint =
      reason.failure.code === 'AUTH'
        ? ' Check the API key.'
        : reason.failure.code === 'TRANSPORT'
          ? ' Check the base URL and that the server is running.'
          : reason.failure.code === 'MISSING_CREDENTIAL'
            ? ' Set the provider\'s API key environment variable.'
            : '';
    process.stderr.write(`forkline: the model request failed — ${describeReason(reason)}.${hint}\n`);
  }
  return reason.kind === 'completed' ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const cli = parse(argv);
  const color = process.stdout.isTTY === true && cli.values['no-color'] !== true && !process.env['NO_COLOR'];
  const out = (s: string) => process.stdout.write(s);
  switch (cli.command) {
    case 'help':
      out(`${USAGE}\n`);
      return 0;
    case '':
      process.stderr.write(`${USAGE}\n`);
      return EXIT_USAGE;
    case 'run': {
      const task = cli.positionals.join(' ').trim();
      const cwd = cli.values['cwd'] as string | undefined;
      if (!task) throw new UsageError('run needs a task, e.g. forkline run --cwd . "make the tests pass"');
      if (!cwd) throw new UsageError('run needs --cwd DIR (the workspace folder)');
      if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd} does not exist`);
      if (!statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is a file, not a folder (the workspace is a folder)`);
      const printer = new TimelineText({ live: true, color });
      const runtime = await open(cli.values, { approvalAnswerer: terminalAnswerer(printer) });
      try {
        checkModelReady(runtime);
        const connection = runtime.host.connect(() => undefined);
        const session = connection.createSession({ cwd: realpathSync(resolve(cwd)) });
        connection.dispose();
        out(`session ${session.id}\n`);
        const code = await runTurn(runtime, printer, session.id, task);
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
      const runtime = await open(cli.values, { approvalAnswerer: terminalAnswerer(printer) });
      try {
        const sessionId = resolveSessionId(runtime, id);
        if (Object.keys(modelOverrides(cli.values)).length === 0) {
          // No model flags: continue on the route the session last used (provider, endpoint, model).
          const route = lastRoute(runtime.store.readAll(sessionId));
          if (route) runtime.settings.useForThisRun({ ...runtime.settings.active, ...route });
        }
        checkModelReady(runtime);
        const code = await runTurn(runtime, printer, sessionId, text);
        out(`\nsession ${sessionId}\n`);
        return code;
      } finally {
        await runtime.close();
      }
    }
    case 'serve': {
      const runtime = await open(cli.values);
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
      await new Promise<void>((resolveStop) => {
        const stop = () => resolveStop();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      await runtime.close();
      return 0;
    }
    case 'ls': {
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        const rows = runtime.repository.list();
        if (cli.values['json']) {
          out(jsonLine(rows.map(sessionListEntry)));
          return 0;
        }
        if (rows.length === 0) out('no sessions yet\n');
        for (const r of rows) {
          const lineage = r.header.parentSession ? `  ⑂ ${r.header.parentSession.slice(0, 8)}` : '';
          out(`${r.header.id}  ${new Date(r.updatedAt).toISOString()}  ${String(r.eventCount).padStart(6)} events  ${r.header.title ?? '(untitled)'}${lineage}\n`);
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
          out(jsonLine(sessionShowJson(loaded.record, loaded.events, loaded.repaired)));
          return 0;
        }
        const h = loaded.record.header;
        out(`session ${h.id}${h.title ? ` — ${h.title}` : ''}\nworkspace ${h.cwd ?? '(none)'}${h.parentSession ? `\nforked from ${h.parentSession} after seq ${(h.seedLength ?? 1) - 1}` : ''}\n`);
        if (loaded.repaired > 0) out(`! recovered after an interruption: ${loaded.repaired} closing events added\n`);
        const printer = new TimelineText({ live: false, color, seqs: true });
        for (const event of loaded.events) out(printer.render(event));
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
      const runtime = await open(cli.values);
      try {
        const connection = runtime.host.connect(() => undefined);
        const child = await connection.forkSession({ sessionId: resolveSessionId(runtime, id), ...(at !== undefined ? { atSeq: at } : {}), ...(cli.values['worktree'] ? { worktree: true } : {}) });
        connection.dispose();
        out(`${child.id}\n`);
        const seed = child.seedLength ?? 0;
        process.stderr.write(`forked after seq ${seed - 1} (the end of the last turn closed there${at !== undefined && at !== seed - 1 ? `; --at ${at} was moved to that turn boundary` : ''})\n`);
        if (cli.values['worktree']) process.stderr.write(`workspace: ${child.cwd}\n`);
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
        const connection = runtime.host.connect(() => undefined);
        const result = await connection.compareSessions({ a: resolveSessionId(runtime, a), b: resolveSessionId(runtime, b) });
        connection.dispose();
        out(`common history: ${result.commonLength} events\n`);
        for (const side of [result.a, result.b]) {
          const s = side.stats;
          out(`\n${side.sessionId}  ${side.title ?? ''}\n  first prompt: ${s.firstPrompt ?? '(none)'}\n  ${s.turns} turns, ${s.steps} steps, ${s.toolCalls} tool calls, ${(s.durationMs / 1000).toFixed(1)} s\n  tokens: ${s.inputTokens} in, ${s.cacheReadTokens} cached, ${s.outputTokens} out\n  last turn: ${s.lastTurnEnd ?? '(none)'}\n`);
        }
        out(`\nfiles that differ (${result.files.length}):\n${result.files.map((f) => `  ${f.status} ${f.path}`).join('\n')}\n`);
        if (result.diffNote) out(`(${result.diffNote})\n`);
        if (result.diff) out(`\n${result.diff}`);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'export': {
      const [id] = cli.positionals;
      if (!id) throw new UsageError('export needs a session id');
      const runtime = openStoredSessions(dataDirOf(cli.values));
      try {
        const jsonl = runtime.repository.exportJsonl(resolveSessionId(runtime, id));
        const file = cli.values['out'] as string | undefined;
        if (file) writeOutputFile(file, jsonl);
        else out(jsonl);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case 'import': {
      const [file] = cli.positionals;
      if (!file) throw new UsageError('import needs a JSONL file');
      if (!existsSync(file)) throw new UsageError(`no file ${file}`);
      const runtime = await open(cli.values);
      try {
        const result = runtime.repository.importJsonl(readFileSync(file, 'utf8'), file);
        for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
        out(`${result.id}\n`);
        return 0;
      } finally {
        await runtime.close();
      }
    }
    default:
      throw new UsageError(unknownCommandMessage(cli.command, COMMANDS));
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`forkline: ${error.message}\n(forkline help for usage)\n`);
      process.exit(EXIT_USAGE);
    }
    if (error instanceof SessionIdError || error instanceof OutputPathError) {
      process.stderr.write(`forkline: ${error.message}\n`);
      process.exit(EXIT_USAGE);
    }
    if (isInputError(error)) {
      process.stderr.write(`forkline: ${(error as ForklineError).message} [${(error as ForklineError).code}]\n`);
      process.exit(EXIT_USAGE);
    }
    if (ForklineError.isInstance(error)) {
      process.stderr.write(`forkline: ${error.message} [${error.code}]\n`);
      process.exit(1);
    }
    if (error instanceof TypeError && String((error as { code?: string }).code ?? '').startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`forkline: ${error.message}\n(forkline help for usage)\n`);
      process.exit(2);
    }
    process.stderr.write(`forkline: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
