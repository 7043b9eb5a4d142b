/**
 * grep's search runs in a worker thread (docs/security.md: Bounded tools): a catastrophic regular
 * expression (`^(a+)+$` over 31 `a`s and a `!` backtracks for minutes) then blocks only the worker,
 * never the main process that serves the UI and the other sessions, and `Worker.terminate()` stops
 * it at once when the time budget runs out or the call is cancelled (V8 interrupts a running
 * regular expression on termination; Node docs, worker_threads `worker.terminate()`).
 *
 * The worker's code is {@link grepWorkerMain}, passed to the Worker as source text (`eval: true`),
 * so it runs the same under tsx, vitest and a bundled build; it must therefore use nothing but its
 * parameters (no imports, no outer variables). It reads each file itself: non-blocking open, `fstat`
 * check that it is still a regular file, size limit, NUL-byte binary check; then tests every line.
 */
import { Worker } from 'node:worker_threads';
import type * as FsModule from 'node:fs';
import type { MessagePort } from 'node:worker_threads';

/** What the worker searches. */
export interface GrepJob {
  readonly pattern: string;
  readonly flags: string;
  /** Absolute paths, and the names shown for them. */
  readonly files: readonly { readonly path: string; readonly shown: string }[];
  /** Matching lines returned (all are counted). */
  readonly maxMatches: number;
  /** Files larger than this are skipped (counted as too large). */
  readonly maxFileBytes: number;
  /** Returned line text is cut to this many UTF-16 units (the caller cuts it finally, on a grapheme boundary). */
  readonly maxLineUnits: number;
  /** Bytes inspected for NUL to call a file binary. */
  readonly binarySniffBytes: number;
}

export interface GrepHit {
  readonly file: number;
  /** 1-based. */
  readonly line: number;
  /** The line (without `\r`), cut to `maxLineUnits`. */
  readonly text: string;
  /** Length of the whole line in UTF-16 units. */
  readonly length: number;
}

export interface GrepOutcome {
  readonly hits: readonly GrepHit[];
  readonly matches: number;
  readonly filesWithMatches: number;
  readonly filesSearched: number;
  readonly binary: number;
  readonly tooLarge: number;
  readonly special: number;
  readonly unreadable: number;
}

/** Why a search ended without an outcome. */
export type GrepStop = { readonly kind: 'budget' } | { readonly kind: 'aborted' } | { readonly kind: 'failed'; readonly message: string };

/**
 * The worker's body. Runs in the worker with `require` and the worker port as parameters.
 * Self-contained by design (see the module comment).
 */
export function grepWorkerMain(req: (id: string) => unknown, port: MessagePort, job: GrepJob): void {
  const fs = req('node:fs') as typeof FsModule;
  const regex = new RegExp(job.pattern, job.flags);
  const hits: GrepHit[] = [];
  let matches = 0;
  let filesWithMatches = 0;
  let filesSearched = 0;
  let binary = 0;
  let tooLarge = 0;
  let special = 0;
  let unreadable = 0;
  for (let f = 0; f < job.files.length; f++) {
    let fd = -1;
    let bytes: Buffer;
    try {
      fd = fs.openSync(job.files[f]!.path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOCTTY ?? 0));
      const st = fs.fstatSync(fd);
      if (!st.isFile()) {
        special++;
        continue;
      }
      if (st.size > job.maxFileBytes) {
        tooLarge++;
        continue;
      }
      bytes = fs.readFileSync(fd);
    } catch {
      unreadable++;
      continue;
    } finally {
      if (fd !== -1) fs.closeSync(fd);
    }
    const sniff = Math.min(bytes.length, job.binarySniffBytes);
    let isBinary = false;
    for (let i = 0; i < sniff; i++) {
      if (bytes[i] === 0) {
        isBinary = true;
        break;
      }
    }
    if (isBinary) {
      binary++;
      continue;
    }
    filesSearched++;
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let found = false;
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      regex.lastIndex = 0;
      if (!regex.test(line)) continue;
      found = true;
      matches++;
      if (hits.length < job.maxMatches) hits.push({ file: f, line: i + 1, text: line.length > job.maxLineUnits ? line.slice(0, job.maxLineUnits) : line, length: line.length });
    }
    if (found) filesWithMatches++;
  }
  const outcome: GrepOutcome = { hits, matches, filesWithMatches, filesSearched, binary, tooLarge, special, unreadable };
  port.postMessage(outcome);
}

/** The worker's source: the body above, called with the worker's `require`, port and job. */
const WORKER_SOURCE =
  // tsx/esbuild may wrap functions in `__name(fn, "name")` (keepNames); give the worker that helper.
  'var __name = (fn) => fn;\n' + `const { parentPort, workerData } = require('node:worker_threads');\n(${grepWorkerMain.toString()})(require, parentPort, workerData);\n`;

/**
 * Runs `job` in a fresh worker thread.
 * @param budgetMs the worker is terminated after this long (its own deadline).
 * @param signal terminates the worker when aborted.
 * @returns the outcome, or why there is none.
 */
export function runGrepWorker(job: GrepJob, budgetMs: number, signal: AbortSignal): Promise<GrepOutcome | GrepStop> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ kind: 'aborted' });
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: job,
      // A runaway match must not take the process's memory with it.
      resourceLimits: { maxOldGenerationSizeMb: 512 },
      stdout: false,
      stderr: false,
    });
    let done = false;
    const finish = (result: GrepOutcome | GrepStop) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate().catch(() => undefined);
      resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: 'budget' }), budgetMs);
    const onAbort = () => finish({ kind: 'aborted' });
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (outcome: GrepOutcome) => finish(outcome));
    worker.once('error', (error) => finish({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }));
    worker.once('exit', (code) => finish({ kind: 'failed', message: `the search worker exited (code ${code}) without a result` }));
  });
}
