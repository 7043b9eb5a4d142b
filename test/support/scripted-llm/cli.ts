/**
 * `npm run scripted-llm -- --script FILE [--port N] [--loop]`: serves a script file until Ctrl+C.
 * Prints the base URL on the first line of stdout; one line per request on stderr.
 */
import { dirname, resolve } from 'node:path';
import { loadScriptFile } from './script-file.js';
import { startScriptedLlm } from './server.js';

const USAGE = 'usage: npm run scripted-llm -- --script FILE [--port N] [--loop]';

/** Parses the arguments, starts the server and resolves once it is listening; returns a closer. */
export async function main(argv: readonly string[]): Promise<() => Promise<void>> {
  let script: string | undefined;
  let port = 0;
  let loop = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--script') script = argv[++i];
    else if (arg === '--port') port = Number(argv[++i]);
    else if (arg === '--loop') loop = true;
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
    steps,
    baseDir: dirname(file),
    log: (line) => console.error(line),
    ...(loop ? { handler: (request) => steps[(request.number - 1) % steps.length]! } : {}),
  });
  console.log(llm.baseUrl);
  console.error(`scripted-llm: ${steps.length} step(s) from ${file}${loop ? ' (looping)' : ''}; Ctrl+C to stop`);
  return () => llm.close();
}
