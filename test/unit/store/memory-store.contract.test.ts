import { MemorySessionStore } from '../../../electron/store/memory-session-store.js';
import { runStoreContract } from '../../support/store-contract.js';

runStoreContract('MemorySessionStore', () => {
  const store = new MemorySessionStore(() => 1_780_000_000_000);
  return { store, dispose: () => store.close() };
});
