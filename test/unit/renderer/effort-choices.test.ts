import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EFFORT_LABEL, effortChoices } from '../../../renderer/views/common/effort-choices.js';

const root = join(import.meta.dirname, '../../..');

describe('reasoning-effort choices (one list for Settings and the fan-out form)', () => {
  it('offers "default" then the provider preset’s efforts, labelled as spelled', () => {
    expect(effortChoices(['off', 'low', 'high', 'max'])).toEqual([
      { value: '', label: DEFAULT_EFFORT_LABEL },
      { value: 'off', label: 'off' },
      { value: 'low', label: 'low' },
      { value: 'high', label: 'high' },
      { value: 'max', label: 'max' },
    ]);
  });

  it('offers nothing for a provider without efforts, but keeps a value already chosen', () => {
    expect(effortChoices([])).toEqual([]);
    expect(effortChoices(undefined)).toEqual([]);
    expect(effortChoices(['low'], 'medium').map((c) => c.value)).toEqual(['', 'low', 'medium']);
  });

  it('is the list both pickers use: neither defines efforts or labels of its own', () => {
    for (const file of ['renderer/views/compare/FanoutForm.tsx', 'renderer/views/settings/SettingsDialog.tsx']) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(text, file).toContain("from '../common/effort-choices.js'");
      expect(text, file).not.toMatch(/'medium'|effort: default|<option value="">/);
    }
  });
});
