/**
 * Writing a command's output to a file the user named (`export --out FILE`): a path that cannot be
 * written is the user's input being wrong, reported in words (which folder is missing, that the path
 * is a folder) rather than as a stack trace.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A path the output cannot be written to; the message says why. */
export class OutputPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputPathError';
  }
}

/**
 * Writes `text` to `file` (UTF-8), replacing it.
 * @throws OutputPathError when the folder does not exist, the path is a folder, or the write is refused.
 */
export function writeOutputFile(file: string, text: string): void {
  const path = resolve(file);
  const dir = dirname(path);
  if (!existsSync(dir)) throw new OutputPathError(`cannot write ${file}: the folder ${dir} does not exist (create it first)`);
  if (!statSync(dir).isDirectory()) throw new OutputPathError(`cannot write ${file}: ${dir} is not a folder`);
  if (existsSync(path) && statSync(path).isDirectory()) throw new OutputPathError(`cannot write ${file}: it is a folder; give a file name, e.g. ${file.replace(/\/$/, '')}/session.jsonl`);
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OutputPathError(`cannot write ${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'the file system is read-only' : (error as Error).message}`);
  }
}
