/**
 * Files the host wrote for the renderer to save (issue 26: "Export bundle…"), handed over in
 * chunks instead of one message: a bundle of tens of MB sent whole would hold the WebSocket (or IPC
 * channel) for the length of one giant frame, and the host would hold the file, its JSON string
 * and the frame at once. Here the file stays on disk in a private temporary folder; each
 * `readDownload` reads at most {@link DOWNLOAD_CHUNK_BYTES} from it and returns them as text (a
 * `StringDecoder` keeps a UTF-8 character split across two reads whole), so the host holds one
 * chunk at a time, and other calls and pushes pass between chunks. The folder is removed when the
 * last chunk was read, on `closeDownload`, or when the connection goes.
 */
import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { ForklineError } from '../../../shared/errors.js';

/** Bytes of the file read per chunk (1 MiB: well under the transport's frame limit, and a few ms to send). */
export const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

/** Downloads one connection may hold open at once. */
export const MAX_OPEN_DOWNLOADS = 4;

/** A file being read by the renderer. */
interface OpenDownload {
  readonly fd: number;
  /** The private folder holding the file (removed at the end). */
  readonly dir: string;
  readonly decoder: StringDecoder;
  readonly buffer: Buffer;
  /** Bytes read so far. */
  offset: number;
}

/** One chunk of a download. */
export interface DownloadChunk {
  readonly text: string;
  /** Bytes of the file read up to the end of this chunk. */
  readonly offset: number;
  /** True for the last chunk (the download is closed). */
  readonly done: boolean;
}

/** The open downloads of one connection. */
export class FileDownloads {
  private readonly open = new Map<string, OpenDownload>();

  /**
   * Registers `file` (inside the private folder `dir`, which this class then owns and removes).
   * @throws ForklineError TOO_MANY_DOWNLOADS (the folder is removed).
   */
  add(id: string, file: string, dir: string): void {
    if (this.open.size >= MAX_OPEN_DOWNLOADS) {
      rmSync(dir, { recursive: true, force: true });
      throw new ForklineError('TOO_MANY_DOWNLOADS', `at most ${MAX_OPEN_DOWNLOADS} downloads may be open at once in one window`);
    }
    this.open.set(id, { fd: openSync(file, 'r'), dir, decoder: new StringDecoder('utf8'), buffer: Buffer.allocUnsafe(DOWNLOAD_CHUNK_BYTES), offset: 0 });
  }

  /**
   * The next chunk of the download; the last one closes it.
   * @throws ForklineError DOWNLOAD_NOT_FOUND (ended, closed, or never started here).
   */
  read(id: string): DownloadChunk {
    const d = this.open.get(id);
    if (!d) throw new ForklineError('DOWNLOAD_NOT_FOUND', `no download ${id} is open in this window (it ended or was closed)`);
    let n: number;
    try {
      n = readSync(d.fd, d.buffer, 0, d.buffer.length, d.offset);
    } catch (error) {
      this.close(id);
      throw error;
    }
    d.offset += n;
    if (n === 0) {
      const text = d.decoder.end();
      const offset = d.offset;
      this.close(id);
      return { text, offset, done: true };
    }
    return { text: d.decoder.write(d.buffer.subarray(0, n)), offset: d.offset, done: false };
  }

  /** Closes a download and removes its file (nothing when it is not open). */
  close(id: string): void {
    const d = this.open.get(id);
    if (!d) return;
    this.open.delete(id);
    try {
      closeSync(d.fd);
    } finally {
      rmSync(d.dir, { recursive: true, force: true });
    }
  }

  /** Closes every download (the connection went away). */
  dispose(): void {
    for (const id of [...this.open.keys()]) this.close(id);
  }
}
