#!/usr/bin/env node
// `forkline` from the repository (`npx forkline …`, `npm run cli -- …`): runs the TypeScript CLI
// through tsx, so no build step is needed for the headless commands.
import { register } from 'tsx/esm/api';

register();
await import('../electron/cli.ts');
