// Two runs (see package.json "test"): everything but test/chaos/ runs files in parallel;
// the chaos tests stop and start the shared RabbitMQ, so they run alone afterwards.
const chaos = Boolean(process.env.MG_TEST_CHAOS);

export default {
  files: chaos ? ['test/chaos/**/*.test.ts'] : ['test/**/*.test.ts', '!test/chaos/**'],
  extensions: ['ts'],
  timeout: '120s',
  concurrency: chaos ? 1 : 2,
  serial: chaos,
  workerThreads: false,
};
