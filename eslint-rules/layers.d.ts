// Types of the local ESLint plugin in layers.js (for tests that run its rules).
import type { ESLint } from 'eslint';

/** The `forkline` plugin: rules `layers` and `no-cycle`. */
declare const plugin: ESLint.Plugin;
export default plugin;
