// The in-process queue (embedded mode) against the queue-transport contract (contract.ts); it has
// no behaviour of its own beyond the contract.
import { setImmediate as tick } from 'node:timers/promises';
import { createMemoryQueue } from '../../../workers/queue/memory.ts';
import { jobs, queueContract } from './contract.ts';

queueContract({
  durable: false,
  async open(t, specs = [jobs]) {
    const queue = createMemoryQueue();
    t.teardown(() => queue.close());
    await queue.setup(specs);
    return {
      queue,
      // Deliveries are decided synchronously when a message or a free slot appears, and handlers
      // start on a later tick: after a few turns of the event loop nothing more is on its way.
      async settled() {
        for (let i = 0; i < 5; i++) await tick();
      },
    };
  },
});
