#!/usr/bin/env node
// `npm run scripted-llm -- --script FILE [--port N] [--loop]`: runs the scripted OpenAI-compatible
// server (test/support/scripted-llm, TypeScript) through tsx and prints its base URL.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../test/support/scripted-llm/cli.ts');
try {
  const close = await main(process.argv.slice(2));
  const stop = () => {
    void close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
