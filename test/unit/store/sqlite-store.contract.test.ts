import { runStoreContract } from '../../support/store-contract.js';
import { sqliteUnderTest } from '../../support/sqlite-store-harness.js';

runStoreContract('SqliteSessionStore (real file)', () => sqliteUnderTest());
runStoreContract('SqliteSessionStore (real file, packing off)', () => sqliteUnderTest({ packChunks: false }));
