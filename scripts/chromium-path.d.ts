/** Usual Chromium/Chrome install locations (Linux, macOS), tried in order after `CHROMIUM_PATH`. */
export declare const CHROMIUM_CANDIDATES: readonly string[];
/** The one line that says what to install when no browser is found. */
export declare const CHROMIUM_INSTALL_HINT: string;
/**
 * The Chromium executable to launch: `env.CHROMIUM_PATH` when set (reported when it is not an
 * executable), else the first executable candidate; `reason` says why none was found.
 */
export declare function findChromium(options?: {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly candidates?: readonly string[];
}): { readonly path: string } | { readonly path: undefined; readonly reason: string };
