/**
 * A provider's API key is only sent to the endpoint the user configured for it (issue 8): the
 * preset's own, or one the user chose (settings file, Settings dialog, CLI flag) — never one taken
 * from a session's log. CLI/UI flags and run-only routes never leak into the settings file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKeyVault, SettingsStore } from '../../../electron/host/settings-store.js';

const dir = mkdtempSync(join(tmpdir(), 'forkline-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { DEEPSEEK_API_KEY: 'sk-env' };

describe('key endpoints', () => {
  it('the preset endpoint gets the key; a route from a log to another endpoint does not', () => {
    const settings = new SettingsStore({ vault: new MemoryKeyVault(), env, dataDir: dir });
    expect(settings.providerSettings().apiKey).toBe('sk-env');
    settings.useForThisRun({ provider: 'deepseek', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    expect(settings.providerSettings().apiKey).toBeUndefined();
    expect(settings.keyWithheldReason()).toContain('only sent to https://api.deepseek.com');
    // The same endpoint spelled differently is still the preset's.
    settings.useForThisRun({ provider: 'deepseek', baseUrl: 'HTTPS://API.deepseek.com/', model: 'm' });
    expect(settings.providerSettings().apiKey).toBe('sk-env');
  });

  it('an endpoint the user configured (flag, settings file, Settings dialog) gets the key', () => {
    const flag = new SettingsStore({ vault: new MemoryKeyVault(), env, dataDir: dir, overrides: { active: { provider: 'deepseek', baseUrl: 'http://proxy.local/v1' } } });
    expect(flag.providerSettings().apiKey).toBe('sk-env');
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify({ version: 1, active: { provider: 'deepseek', baseUrl: 'http://saved.local/v1', model: 'm' }, approvalPolicy: 'allow' }));
    const saved = new SettingsStore({ file, vault: new MemoryKeyVault(), env, dataDir: dir });
    expect(saved.providerSettings().apiKey).toBe('sk-env');
    saved.update({ active: { provider: 'deepseek', baseUrl: 'http://chosen.local/v1', model: 'm' } });
    expect(saved.providerSettings().apiKey).toBe('sk-env');
    saved.useForThisRun({ provider: 'deepseek', baseUrl: 'http://saved.local/v1', model: 'm' });
    expect(saved.providerSettings().apiKey).toBe('sk-env');
    // A key for one provider is never sent for another provider's endpoint.
    saved.useForThisRun({ provider: 'openai', baseUrl: 'http://saved.local/v1', model: 'm' });
    expect(saved.providerSettings().apiKey).toBeUndefined();
  });

  it('overrides apply to this run only and never reach the settings file', () => {
    const file = join(dir, 'over.json');
    writeFileSync(file, JSON.stringify({ version: 1, active: { provider: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'deepseek-v4-flash' }, approvalPolicy: 'ask' }));
    const settings = new SettingsStore({ file, vault: new MemoryKeyVault(), env, dataDir: dir, overrides: { approvalPolicy: 'allow', active: { model: 'flag-model' } } });
    expect(settings.approvalPolicy).toBe('allow');
    settings.update({ active: { provider: 'deepseek', baseUrl: 'https://api.deepseek.com', model: 'ui-model' } });
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.approvalPolicy).toBe('ask');
    expect(written.active.model).toBe('ui-model');
  });
});
