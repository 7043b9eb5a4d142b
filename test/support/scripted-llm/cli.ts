/**
 * `npm run scripted-llm -- --script FILE [--port N] [--loop]`: serves a script file until Ctrl+C.
 * `--strict-thinking` refuses what DeepSeek's thinking mode refuses (strict-thinking.ts);
 * `--reject-unknown-fields` refuses message fields outside the schema (strict-fields.ts).
 * Prints the base URL on the first line of stdout; one line per request on stderr. Each request gets
 * the step of its own conversation (conversation-position.ts), so several sessions, resumes and
 * forks can share one server.
 */
import { dirname, resolve } from 'node:path';
import { conversationPosition, stepsByConversation } from './conversation-position.js';
import { loadScriptFile } from './script-file.js';
import { startScriptedLlm } from './server.js';

const USAGE = 'usage: npm run scripted-llm -- --script FILE [--port N] [--loop] [--strict-thinking] [--reject-unknown-fields]';

/** Parses the arguments, starts the server and resolves once it is listening; returns a closer. */
export async function main(argv: readonly string[]): Promise<() => Promise<void>> {
  let script: string | undefined;
  let port = 0;
  let loop = false;
  let strictThinking = false;
  let rejectUnknownFields = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--script') script = argv[++i];
    else if (arg === '--port') port = Number(argv[++i]);
    else if (arg === '--loop') loop = true;
    else if (arg === '--strict-thinking') strictThinking = true;
    else if (arg === '--reject-unknown-fields') rejectUnknownFields = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      return async () => {};
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  if (script === undefined) throw new Error(`--script is required\n${USAGE}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad --port\n${USAGE}`);
  const file = resolve(script);
  const steps = loadScriptFile(file);
  const llm = await startScriptedLlm({
    port,
    baseDir: dirname(file),
    log: (line) => console.error(line),
    handler: stepsByConversation(steps, loop),
    strictThinking,
    rejectUnknownFields,
    noStepMessage: (request) =>
      `scripted-llm: the script has ${steps.length} replies and this conversation already has ${conversationPosition(request)}; nothing is scripted for its next step (start the server with --loop to start over)`,
  });
  console.log(llm.baseUrl);
  console.error(`scripted-llm: ${steps.length} step(s) from ${file}, played per conversation${loop ? ' (looping)' : ''}; Ctrl+C to stop`);
  return () => llm.close();
}
