// The store contract (test/db/store-contract.ts) on the embedded default: SQLite, the portable engine.
import { startGateway } from '../helpers/gateway.ts';
import { storeContract } from './store-contract.ts';

storeContract({
  name: 'sqlite',
  gateway: (opts) => startGateway({ queue: 'memory', ...opts, db: 'sqlite' }),
  conflicts: false,
});
