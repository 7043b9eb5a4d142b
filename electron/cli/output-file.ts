/**
 * Writing a command's output to a file the user named (`export --out FILE`): a path that cannot be
 * written is the user's input being wrong, reported in words (which folder is missing, that the path
 * is a folder) rather than as a stack trace.
 */
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A path the output cannot be written to; the message says why. */
export class OutputPathError extends Error {
  /** @param exitCode 2 for a path that cannot be written (the user's input); 1 when the write itself failed (a full disk). */
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'OutputPathError';
  }
}

/** A file opened for output written piece by piece (synchronously: memory holds one piece). */
export interface OutputFile {
  /** @throws OutputPathError when the write fails (a full disk: ENOSPC). */
  write(text: string): Promise<void>;
  readonly open: boolean;
  close(): void;
}

/**
 * Opens `file` for writing (replacing it), checked first.
 * @throws OutputPathError when the folder does not exist, the path is a folder, or the open is refused.
 */
export function openOutputFile(file: string): OutputFile {
  const path = checkedPath(file);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w');
  } catch (error) {
    throw refused(file, error);
  }
  return {
    get open() {
      return fd !== undefined;
    },
    write: async (text) => {
      if (fd === undefined) return;
      try {
        const bytes = Buffer.from(text, 'utf8');
        for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
      } catch (error) {
        throw refused(file, error);
      }
    },
    close: () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function checkedPath(file: string): string {
  const path = resolve(file);
  const dir = dirname(path);
  if (!existsSync(dir)) throw new OutputPathError(`cannot write ${file}: the folder ${dir} does not exist (create it first)`);
  if (!statSync(dir).isDirectory()) throw new OutputPathError(`cannot write ${file}: ${dir} is not a folder`);
  if (existsSync(path) && statSync(path).isDirectory()) throw new OutputPathError(`cannot write ${file}: it is a folder; give a file name, e.g. ${file.replace(/\/$/, '')}/session.jsonl`);
  return path;
}

function refused(file: string, error: unknown): OutputPathError {
  const code = (error as NodeJS.ErrnoException).code;
  const words =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'ENOSPC'
          ? 'no space left on device'
          : (error as Error).message.split('\n')[0];
  const failedWrite = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' || code === 'EIO';
  return new OutputPathError(`cannot write ${file}: ${words}${code ? ` [${code}]` : ''}`, failedWrite ? 1 : 2);
}
