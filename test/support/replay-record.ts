/**
 * Records the replay corpus, test/fixtures/replay/ (issue 23): `npm run replay:record [NAME…]`.
 *
 * Each scenario runs the real CLI (`forkline run` / `resume` / `fork`, a child process) against the
 * scripted OpenAI-compatible server (test/support/scripted-llm) in a fixed workspace path
 * (/tmp/forkline-replay-corpus/<name>), exports the stored session as JSONL (`NAME.jsonl`) and
 * writes the SHA-256 of every request body the server received (`NAME.wire.json`). Imported
 * scenarios import a log of another agent from /work/shared/fixtures (or test/fixtures) and export
 * the result. Re-record after an intended change of what Forkline sends; the diff of the
 * fixtures shows what changed. test/integration/replay/corpus.test.ts replays them all.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJsonl } from '../../electron/session/jsonl.js';
import { requestLog } from '../../shared/request-log.js';
import { forkline, ROOT, startForkline } from './cli-process.js';
import { httpError, startScriptedLlm, textResponse, toolCallResponse, reasoningResponse, type ScriptedLlm, type ScriptStep } from './scripted-llm/index.js';

export const CORPUS_DIR = join(ROOT, 'test/fixtures/replay');
const WORK_ROOT = '/tmp/forkline-replay-corpus';
const AGENT_LOGS = existsSync('/work/shared/fixtures/agent-session-logs') ? '/work/shared/fixtures/agent-session-logs' : join(ROOT, 'test/fixtures/agent-session-logs');

interface Leg {
  readonly prompt: string;
  readonly steps: readonly ScriptStep[];
  /** `resume` continues the session; `fork` forks it at its last turn end and continues the child. */
  readonly how?: 'resume' | 'fork';
  /** Answer a compaction's summary request with this text wherever it comes (steps answer the rest, in order). */
  readonly summary?: string;
  /** Stop the CLI once its output contains this text: SIGINT (a cancel) or SIGKILL (a crash). */
  readonly stopAt?: { readonly text: string; readonly signal: 'SIGINT' | 'SIGKILL' };
}

interface Scenario {
  readonly name: string;
  readonly provider?: string;
  readonly args?: readonly string[];
  readonly legs?: readonly Leg[];
  /** An agent log to import instead (path under the agent-session-logs fixtures). */
  readonly importLog?: string;
}

const fixSum: readonly ScriptStep[] = [
  toolCallResponse([{ id: 'call_read', name: 'read_file', arguments: '{"path":"sum.js"}' }], { text: 'Let me read sum.js.' }),
  toolCallResponse([{ id: 'call_test', name: 'bash', arguments: '{"command":"node test.js"}' }]),
  toolCallResponse([{ id: 'call_edit', name: 'edit_file', arguments: JSON.stringify({ path: 'sum.js', old_string: 'let total;', new_string: 'let total = 0;' }) }]),
  toolCallResponse([{ id: 'call_test2', name: 'bash', arguments: '{"command":"node test.js"}' }]),
  textResponse('Fixed: the total starts at 0.'),
];

const PROVIDERS = ['custom', 'deepseek', 'openai', 'openrouter', 'gemini', 'ollama', 'vllm', 'llamacpp', 'lmstudio'];

export const SCENARIOS: readonly Scenario[] = [
  ...PROVIDERS.map((provider) => ({ name: `fix-sum-${provider}`, provider, legs: [{ prompt: 'fix the sum', steps: fixSum }] })),
  {
    name: 'reasoning-deepseek',
    provider: 'deepseek',
    legs: [{ prompt: 'what does sum.js do?', steps: [reasoningResponse('The user asks about sum.js; I know it from the example.', 'It adds numbers.')] }],
  },
  {
    name: 'parallel-tools',
    legs: [
      {
        prompt: 'look around',
        steps: [
          toolCallResponse([
            { id: 'p1', name: 'read_file', arguments: '{"path":"sum.js"}' },
            { id: 'p2', name: 'read_file', arguments: '{"path":"test.js"}' },
            { id: 'p3', name: 'list_dir', arguments: '{"path":"."}' },
          ]),
          textResponse('Two files and a test.'),
        ],
      },
    ],
  },
  {
    name: 'bad-calls',
    legs: [
      {
        prompt: 'try some tools',
        steps: [
          toolCallResponse([{ id: 'b1', name: 'read_file', arguments: '{"path": ' }]),
          toolCallResponse([{ id: 'b2', name: 'frobnicate', arguments: '{}' }]),
          toolCallResponse([{ id: 'b3', name: 'read_file', arguments: '{"path":"missing.txt"}' }]),
          textResponse('Done trying.'),
        ],
      },
    ],
  },
  {
    name: 'write-and-todo',
    legs: [
      {
        prompt: 'write notes',
        steps: [
          toolCallResponse([{ id: 't1', name: 'todo_write', arguments: JSON.stringify({ todos: [{ content: 'write notes', status: 'in_progress' }] }) }]),
          toolCallResponse([{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.md', content: '# Notes\n' }) }]),
          toolCallResponse([{ id: 'g1', name: 'grep', arguments: JSON.stringify({ pattern: 'total' }) }]),
          textResponse('Notes written.'),
        ],
      },
    ],
  },
  {
    name: 'denied-write',
    args: ['--approval', 'deny'],
    legs: [{ prompt: 'write a file', steps: [toolCallResponse([{ id: 'd1', name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) }]), textResponse('I was not allowed.')] }],
  },
  {
    name: 'retry-after-500',
    legs: [{ prompt: 'say hi', steps: [httpError(500, { error: { message: 'boom' } }), textResponse('hi')] }],
  },
  {
    name: 'max-tokens',
    legs: [{ prompt: 'write a long story', steps: [textResponse('Once upon a time', { finish: 'length' })] }],
  },
  {
    name: 'multi-turn-resume',
    legs: [
      { prompt: 'read sum.js', steps: [toolCallResponse([{ id: 'r1', name: 'read_file', arguments: '{"path":"sum.js"}' }]), textResponse('Read it.')] },
      { how: 'resume', prompt: 'now run the test', steps: [toolCallResponse([{ id: 'r2', name: 'bash', arguments: '{"command":"node test.js"}' }]), textResponse('It fails.')] },
      { how: 'resume', prompt: 'thanks', steps: [textResponse('You are welcome.')] },
    ],
  },
  {
    name: 'fork-and-continue',
    legs: [
      { prompt: 'read sum.js', steps: [toolCallResponse([{ id: 'f1', name: 'read_file', arguments: '{"path":"sum.js"}' }]), textResponse('Read it.')] },
      { how: 'fork', prompt: 'list the folder', steps: [toolCallResponse([{ id: 'f2', name: 'list_dir', arguments: '{"path":"."}' }]), textResponse('Listed.')] },
    ],
  },
  {
    name: 'compaction',
    args: ['--context-window', '4000'],
    legs: [
      {
        prompt: 'read everything',
        summary: '## Goal\n- read the files\n## Done\n- read test.js, printed numbers',
        steps: [
          toolCallResponse([{ id: 'c1', name: 'read_file', arguments: '{"path":"test.js"}' }]),
          toolCallResponse([{ id: 'c2', name: 'bash', arguments: '{"command":"seq 1 1500"}' }]),
          toolCallResponse([{ id: 'c3', name: 'read_file', arguments: '{"path":"sum.js"}' }]),
          textResponse('Read it all.'),
        ],
      },
    ],
  },
  {
    name: 'cancel-during-bash',
    legs: [
      { prompt: 'wait a while', steps: [toolCallResponse([{ id: 'x1', name: 'bash', arguments: '{"command":"sleep 30"}' }])], stopAt: { text: '→ bash sleep 30', signal: 'SIGINT' } },
      { how: 'resume', prompt: 'never mind', steps: [textResponse('OK.')] },
    ],
  },
  {
    name: 'crash-during-bash',
    legs: [
      { prompt: 'wait a while', steps: [toolCallResponse([{ id: 'k1', name: 'bash', arguments: '{"command":"sleep 30"}' }])], stopAt: { text: '→ bash sleep 30', signal: 'SIGKILL' } },
      { how: 'resume', prompt: 'what happened?', steps: [textResponse('The app was interrupted; the sleep may not have finished.')] },
    ],
  },
  { name: 'imported-claude-code', importLog: 'claude-code/cc_coverage-test-fix.jsonl' },
  { name: 'imported-claude-code-hello', importLog: 'claude-code/cc_hello-world-script.jsonl' },
  { name: 'imported-codex', importLog: 'codex/codex_synthetic_tool-calls-escalation-aborted.rollout.jsonl' },
  { name: 'imported-openhands', importLog: 'openhands/oh_basic_interactions.trajectory.json' },
];

const KEYS = { DEEPSEEK_API_KEY: 'sk-replay', OPENAI_API_KEY: 'sk-replay', OPENROUTER_API_KEY: 'sk-replay', GEMINI_API_KEY: 'sk-replay' };

function sessionIdOf(stdout: string): string {
  const id = /session ([0-9a-f-]{36})/.exec(stdout)?.[1];
  if (id === undefined) throw new Error(`no session id in:\n${stdout}`);
  return id;
}

async function runLeg(llm: ScriptedLlm, scenario: Scenario, leg: Leg, dataDir: string, work: string, id: string | undefined): Promise<string> {
  if (leg.summary === undefined) llm.enqueue(...leg.steps);
  else {
    const queue = [...leg.steps];
    llm.setHandler((request) => {
      const last = JSON.stringify((request.body as { messages?: unknown[] }).messages?.at(-1) ?? '');
      if (last.includes('compaction engine')) return textResponse(leg.summary!);
      return queue.shift() ?? textResponse('(the script ended)');
    });
  }
  const model = ['--base-url', llm.baseUrl, '--model', 'scripted-model', ...(scenario.provider && scenario.provider !== 'custom' ? ['--provider', scenario.provider] : [])];
  let args: string[];
  if (id === undefined) args = ['run', '--cwd', work, ...model, '--approval', 'allow', ...(scenario.args ?? []), leg.prompt];
  else if (leg.how === 'fork') {
    const forked = await forkline(['fork', id], { dataDir, env: KEYS });
    const child = /([0-9a-f-]{36})/.exec(forked.stdout)?.[1];
    if (forked.code !== 0 || child === undefined) throw new Error(`fork failed: ${forked.stdout}${forked.stderr}`);
    id = child;
    args = ['resume', child, ...model, '--approval', 'allow', ...(scenario.args ?? []), leg.prompt];
  } else args = ['resume', id, ...model, '--approval', 'allow', ...(scenario.args ?? []), leg.prompt];
  let stopped = false;
  const run = startForkline(args, {
    dataDir,
    env: KEYS,
    onStdout: (text, child) => {
      if (leg.stopAt && !stopped && text.includes(leg.stopAt.text)) {
        stopped = true;
        // Give the tool a moment to start (its process is logged first).
        setTimeout(() => child.kill(leg.stopAt!.signal), 400);
      }
    },
  });
  const done = await run.exited;
  llm.setHandler(undefined);
  if (!leg.stopAt && done.code !== 0 && scenario.name !== 'max-tokens') throw new Error(`${scenario.name}: forkline ${args[0]} exited ${done.code}\n${done.stdout}\n${done.stderr}`);
  return id ?? sessionIdOf(done.stdout);
}

/** Records one scenario into the corpus folder. */
async function record(llm: ScriptedLlm, scenario: Scenario): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'forkline-replay-record-'));
  const work = join(WORK_ROOT, scenario.name);
  try {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(WORK_ROOT, { recursive: true });
    cpSync(join(ROOT, 'examples/fix-sum'), work, { recursive: true });
    let id: string | undefined;
    const before = llm.requests.length;
    if (scenario.importLog !== undefined) {
      const imported = await forkline(['import', join(AGENT_LOGS, scenario.importLog)], { dataDir });
      if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
      const listed = await forkline(['ls', '--json'], { dataDir });
      id = (JSON.parse(listed.stdout) as { id: string }[])[0]?.id;
    } else {
      for (const leg of scenario.legs ?? []) id = await runLeg(llm, scenario, leg, dataDir, work, id);
    }
    if (id === undefined) throw new Error(`${scenario.name}: no session`);
    const exported = await forkline(['export', id], { dataDir });
    if (exported.code !== 0) throw new Error(`${scenario.name}: export failed: ${exported.stderr}`);
    writeFileSync(join(CORPUS_DIR, `${scenario.name}.jsonl`), exported.stdout);
    const wire = llm.requests.slice(before).map((r) => createHash('sha256').update(r.rawBody).digest('hex'));
    const parsed = importJsonl(exported.stdout, scenario.name);
    const sent = requestLog(parsed.events).filter((r) => r.sent);
    const wirePath = join(CORPUS_DIR, `${scenario.name}.wire.json`);
    if (scenario.importLog === undefined && sent.length === wire.length) writeFileSync(wirePath, `${JSON.stringify(wire, null, 1)}\n`);
    else {
      rmSync(wirePath, { force: true });
      if (scenario.importLog === undefined) console.warn(`${scenario.name}: ${sent.length} logged requests but ${wire.length} reached the server; no wire hashes kept`);
    }
    console.log(`recorded ${scenario.name}: ${parsed.events.length} events, ${sent.length} requests`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(names: readonly string[]): Promise<void> {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const llm = await startScriptedLlm();
  try {
    for (const scenario of SCENARIOS) if (names.length === 0 || names.includes(scenario.name)) await record(llm, scenario);
  } finally {
    await llm.close();
  }
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
