/**
 * Browser mode keeps keys in memory only: the settings file notes the provider's name (never the
 * key), so the next run can say the key was lost; the theme is a setting that survives a restart.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryKeyVault, SettingsStore } from '../../../electron/host/settings-store.js';

describe('settings over a restart', () => {
  it('names a key lost by a memory-only vault, never stores it, and keeps the theme', () => {
    const dir = mkdtempSync(join(tmpdir(), 'forkline-settings-'));
    const file = join(dir, 'settings.json');
    const first = new SettingsStore({ file, vault: new MemoryKeyVault(), env: {}, dataDir: dir });
    first.setApiKey('deepseek', 'sk-secret-value');
    first.update({ theme: 'dark' });
    expect(first.view()).toMatchObject({ keysPersist: false, lostKeys: [], theme: 'dark' });
    expect(readFileSync(file, 'utf8')).not.toContain('sk-secret-value');
    const second = new SettingsStore({ file, vault: new MemoryKeyVault(), env: {}, dataDir: dir });
    expect(second.view()).toMatchObject({ lostKeys: ['deepseek'], theme: 'dark' });
    // The key from the environment: nothing is lost.
    const third = new SettingsStore({ file, vault: new MemoryKeyVault(), env: { DEEPSEEK_API_KEY: 'sk-env' }, dataDir: dir });
    expect(third.view().lostKeys).toEqual([]);
    // Saved again, then cleared: no longer reported.
    second.setApiKey('deepseek', 'sk-again');
    second.setApiKey('deepseek', '');
    expect(new SettingsStore({ file, vault: new MemoryKeyVault(), env: {}, dataDir: dir }).view().lostKeys).toEqual([]);
  });
});
