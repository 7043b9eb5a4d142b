/**
 * A key vault for a platform whose secret storage is only obfuscation (docs/security.md): on Linux without
 * a keyring, Electron's `safeStorage` falls back to the `basic_text` backend, which encrypts with a
 * fixed, public password — anyone who can read the file can read the keys. Keys are then stored
 * only after the user agreed to that (asked once per run, on the first key saved); otherwise they
 * are kept in memory for this run only.
 */
import { MemoryKeyVault, type KeyVault } from './settings-store.js';

export class ConsentedKeyVault implements KeyVault {
  private consent: boolean | undefined;
  private readonly memory = new MemoryKeyVault();

  constructor(
    /** Where keys go once the user agreed (e.g. the encrypted keys.json). */
    private readonly stored: KeyVault,
    /** Asks the user whether keys may be stored with weak protection; true = agreed. */
    private readonly askConsent: () => boolean,
  ) {}

  /** True once the user agreed: keys then survive a restart. */
  get persistent(): boolean {
    return this.consent === true;
  }

  get(provider: string): string | undefined {
    return this.memory.get(provider) ?? this.stored.get(provider);
  }

  set(provider: string, key: string | undefined): void {
    if (key === undefined || key === '') {
      this.memory.set(provider, undefined);
      this.stored.set(provider, undefined);
      return;
    }
    this.consent ??= this.askConsent();
    if (this.consent) {
      this.memory.set(provider, undefined);
      this.stored.set(provider, key);
    } else {
      this.memory.set(provider, key);
    }
  }
}
