// Two commands: `npm test` runs everything but test/chaos/, two files at a time; `npm run
// test:chaos` (MG_TEST_CHAOS=1) runs test/chaos/ one file at a time. The chaos tests start,
// stop and restart a RabbitMQ node and a MariaDB server of their own
// (test/helpers/own-services.ts), so they need those programs installed; they never touch the
// services the other tests use.
const chaos = Boolean(process.env.MG_TEST_CHAOS);

export default {
  files: chaos ? ['test/chaos/**/*.test.ts'] : ['test/**/*.test.ts', '!test/chaos/**'],
  extensions: ['ts'],
  timeout: '120s',
  concurrency: chaos ? 1 : 2,
  serial: chaos,
  workerThreads: false,
};
