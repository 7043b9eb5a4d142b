import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHROMIUM_INSTALL_HINT, findChromium } from '../../../scripts/chromium-path.js';

describe('findChromium (where the browser tests find a browser)', () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'forkline-chromium-'));
    dirs.push(d);
    return d;
  };
  const executable = (path: string, mode = 0o755): string => {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, mode);
    return path;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('takes the first executable candidate, skipping missing and non-executable ones', () => {
    const d = dir();
    const notExecutable = executable(join(d, 'chromium-browser'), 0o644);
    const chrome = executable(join(d, 'google-chrome'));
    const found = findChromium({ env: {}, candidates: [join(d, 'chromium'), notExecutable, chrome] });
    expect(found).toEqual({ path: chrome });
  });

  it('prefers CHROMIUM_PATH, and reports it when it is wrong instead of falling back', () => {
    const d = dir();
    const custom = executable(join(d, 'my-chrome'));
    const other = executable(join(d, 'chromium'));
    expect(findChromium({ env: { CHROMIUM_PATH: custom }, candidates: [other] })).toEqual({ path: custom });
    const wrong = findChromium({ env: { CHROMIUM_PATH: join(d, 'nope') }, candidates: [other] });
    expect(wrong.path).toBeUndefined();
    expect(wrong.path === undefined && wrong.reason).toBe(`CHROMIUM_PATH=${join(d, 'nope')} is not an executable file`);
  });

  it('says in one line what to install when there is no browser', () => {
    const found = findChromium({ env: {}, candidates: [join(dir(), 'chromium')] });
    expect(found.path).toBeUndefined();
    expect(found.path === undefined && found.reason).toBe(CHROMIUM_INSTALL_HINT);
    expect(CHROMIUM_INSTALL_HINT).not.toContain('\n');
    expect(CHROMIUM_INSTALL_HINT).toContain('apt-get install chromium');
  });
});
