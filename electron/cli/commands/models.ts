/** `forkline models [--provider P | --base-url URL]`: an endpoint's models with their context windows (exit 1 when it lists none). */
import { providerPreset } from '../../llm/providers.js';
import { defineCommand } from '../command.js';
import { ENGINE_OPTIONS, openRuntime } from '../engine-options.js';
import { UsageError } from '../error-line.js';

export const command = defineCommand({
  options: { ...ENGINE_OPTIONS },
  async run(ctx, { options }) {
    const out = (s: string) => ctx.stdout.write(s);
    const runtime = await openRuntime(options);
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
  },
});
