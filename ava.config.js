// Two commands: `npm test` runs everything but test/chaos/, two files at a time; `npm run
// test:chaos` (MG_TEST_CHAOS=1) runs test/chaos/ one file at a time. The chaos tests start,
// stop and restart a RabbitMQ node and a MariaDB server of their own
// (test/helpers/own-services.ts), so they need those programs installed; they never touch the
// services the other tests use.
const chaos = Boolean(process.env.MG_TEST_CHAOS);
// Node's compile cache for the test processes and the gateways and CLIs they start (they inherit
// it): each test file is a new process that compiles the same few hundred modules again, about a
// third of its start (1.05 s instead of 1.5 s to import the gateway; 98 s to 90 s for 19 test files).
process.env.NODE_COMPILE_CACHE ??= new URL('node_modules/.cache/node-compile/', import.meta.url).pathname;

export default {
  files: chaos ? ['test/chaos/**/*.test.ts'] : ['test/**/*.test.ts', '!test/chaos/**'],
  extensions: ['ts'],
  // with no test result from any file for this long, the run stops: the store's contract files run
  // their 40 tests at once and answer only after 1.5 minutes even alone, and CI once saw two of
  // them together give no result for 2 minutes (nothing hung: each passes alone and paired)
  timeout: '300s',
  concurrency: chaos ? 1 : 2,
  serial: chaos,
  workerThreads: false,
};
