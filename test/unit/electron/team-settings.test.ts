/**
 * The app's team store settings (electron/host/services/team-settings.ts): which connection string
 * is in effect (Settings, then FORKLINE_TEAM_STORE, then cli.json), a bad one refused without
 * saving, the file kept user-only, and which sessions a shared workspace covers.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TeamSettings } from '../../../electron/host/services/team-settings.js';
import { TeamStoreError } from '../../../electron/team/team-errors.js';
import { tempDir } from '../../support/store-fixtures.js';

const temp = tempDir('forkline-team-settings-');
afterAll(() => temp.dispose());
let n = 0;
function folder(): string {
  const dir = join(temp.dir, `d${++n}`);
  mkdirSync(dir);
  return dir;
}

describe('TeamSettings', () => {
  it('takes the connection string from Settings, then FORKLINE_TEAM_STORE, then cli.json', () => {
    const dir = folder();
    writeFileSync(join(dir, 'cli.json'), JSON.stringify({ teamStore: 'postgres://cli@h/db' }));
    const fromCli = new TeamSettings(dir, {}).resolve();
    expect(fromCli.ok && fromCli.url).toMatchObject({ url: 'postgres://cli@h/db', source: `teamStore in ${join(dir, 'cli.json')}` });
    const env = { FORKLINE_TEAM_STORE: 'postgres://env@h/db' };
    const fromEnv = new TeamSettings(dir, env).resolve();
    expect(fromEnv.ok && fromEnv.url.url).toBe('postgres://env@h/db');
    const settings = new TeamSettings(dir, env);
    settings.setStoreUrl(' postgres://app:secret@h:5432/db ');
    const fromApp = new TeamSettings(dir, env).resolve();
    expect(fromApp.ok && fromApp.url).toEqual({ url: 'postgres://app:secret@h:5432/db', source: 'Settings' });
    expect(statSync(settings.file).mode & 0o777).toBe(0o600);
    // '' clears the app's string: the environment's is used again.
    settings.setStoreUrl('');
    const cleared = new TeamSettings(dir, env).resolve();
    expect(cleared.ok && cleared.url.url).toBe('postgres://env@h/db');
  });

  it('says when none is configured, and refuses a string that is not a PostgreSQL URL without saving it', () => {
    const dir = folder();
    const settings = new TeamSettings(dir, {});
    const none = settings.resolve();
    expect(none.ok === false && none.error.code).toBe('TEAM_STORE_NOT_CONFIGURED');
    expect(() => settings.setStoreUrl('mysql://x@h/db')).toThrow(TeamStoreError);
    expect(() => settings.setStoreUrl('mysql://x@h/db')).toThrow(/is a mysql: URL; expected postgres:\/\//);
    expect(settings.storeUrlFromApp()).toBeUndefined();
    const bad = new TeamSettings(dir, { FORKLINE_TEAM_STORE: 'not a url' }).resolve();
    expect(bad.ok === false && bad.error.code).toBe('TEAM_STORE_URL_INVALID');
  });

  it('shares sessions created in the folder or below it since sharing began, and nothing else', () => {
    const dir = folder();
    const settings = new TeamSettings(dir, {});
    settings.setShared('/work/app', true, 1000);
    expect(settings.sharedFor('/work/app', 1000)?.workspace).toBe('/work/app');
    expect(settings.sharedFor('/work/app/sub', 2000)?.workspace).toBe('/work/app');
    expect(settings.sharedFor('/work/application', 2000)).toBeUndefined();
    expect(settings.sharedFor('/work/app', 999)).toBeUndefined();
    expect(settings.sharedFor(undefined, 2000)).toBeUndefined();
    // Turning it on again keeps when it began; off removes it.
    settings.setShared('/work/app', true, 5000);
    expect(new TeamSettings(dir, {}).shared()).toEqual([{ workspace: '/work/app', since: 1000 }]);
    settings.setShared('/work/app', false, 6000);
    expect(new TeamSettings(dir, {}).shared()).toEqual([]);
    expect(() => settings.setShared('relative/path', true, 1)).toThrow(/not an absolute folder path/);
  });

  it('reads a damaged file as no settings and leaves it as it is', () => {
    const dir = folder();
    writeFileSync(join(dir, 'team-settings.json'), '{ not json');
    const settings = new TeamSettings(dir, {});
    expect(settings.shared()).toEqual([]);
    expect(settings.storeUrlFromApp()).toBeUndefined();
    expect(readFileSync(join(dir, 'team-settings.json'), 'utf8')).toBe('{ not json');
  });
});
