/**
 * The benchmarks' no-op tool: `noop({ n: number })`, risk `read` (never asks), answers `ok` at once,
 * so a step's tool time is the harness's own overhead (bench/step-overhead, otlp, replay).
 */
import { z } from 'zod';
import { defineTool } from '../electron/tools/tool.js';

/** A fresh `noop` tool definition (see the file comment). */
export function noopTool(): ReturnType<typeof defineTool> {
  return defineTool({
    name: 'noop',
    description: 'does nothing',
    parameters: z.object({ n: z.number() }).strict(),
    risk: 'read',
    presentation: 'generic',
    execute: async () => ({ content: 'ok' }),
  });
}
