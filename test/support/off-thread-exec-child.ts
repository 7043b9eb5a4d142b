/**
 * For test/integration/platform/off-thread-exec.test.ts: awaits one command launched off-thread with
 * nothing else keeping the process alive, prints what it printed, and must then exit by itself
 * (the launcher's worker holds the process only while a command runs).
 * Usage: off-thread-exec-child.ts <seconds to sleep>
 */
import { execFileOffThread } from '../../electron/platform/off-thread-exec.js';

const { stdout } = await execFileOffThread('/bin/sh', ['-c', `sleep ${process.argv[2] ?? '0.3'}; echo slept`]);
process.stdout.write(`child got: ${stdout}`);
