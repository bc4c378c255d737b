// The rooms' dependency rules (README "Layout"), checked by `npm test` (`npm run depcheck`).
// Type-only imports count (tsPreCompilationDeps): a type import still couples the modules and
// can close a cycle.
const ROOMS = '^(handlers|plugins|workers|db)/';
const COMPOSITION_ROOT = '^(app|main|server)[.]ts$';
// node_modules may be a symlink (worktrees), so resolved package paths need not start with it
const HAPI = '(^|/)node_modules/@hapi/';
// the store (db/store/types.ts): its interface and its selector; everything else in db/store/ is an engine's
const STORE = '^db/store/';
const STORE_FACE = '^db/store/(types|index)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (type-only imports included) makes the rooms one module; break it with a type in lib/.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the checker cannot resolve would escape every rule below.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'only-the-composition-root-imports-app',
      severity: 'error',
      comment: 'app.ts builds everything; name its types from lib/context.ts instead (only main, server, app and test/ import it).',
      from: { pathNot: [COMPOSITION_ROOT, '^test/'] },
      to: { path: '^app[.]ts$' },
    },
    {
      name: 'workers-not-to-handlers',
      severity: 'error',
      comment: 'Workers run without the HTTP edge (handlers, plugins); what both need is shared in lib/.',
      from: { path: '^workers/' },
      to: { path: '^(handlers|plugins)/' },
    },
    {
      name: 'spec-declares-only',
      severity: 'error',
      comment: 'spec/ loads and checks the document; the code follows it, not the other way round.',
      from: { path: '^spec/' },
      to: { path: ['^(handlers|plugins|db)/', COMPOSITION_ROOT] },
    },
    {
      name: 'handlers-not-to-plugins',
      severity: 'error',
      comment: 'Handlers get their context from the route bridge; errors, Caller and constants come from lib/.',
      from: { path: '^handlers/' },
      to: { path: '^plugins/' },
    },
    {
      name: 'cli-speaks-http',
      severity: 'error',
      comment: 'The CLI is a client of the documented routes: it imports none of the server. Only its operator modules (cli/operator.ts, cli/admin.ts, cli/ledger-check.ts, cli/models.ts) run the gateway\'s own code, on its machine.',
      from: { path: '^cli/', pathNot: '^cli/(operator|admin|ledger-check|models)[.]ts$' },
      to: { pathNot: '^cli/', dependencyTypesNot: ['core', 'npm', 'npm-dev'] },
    },
    {
      name: 'db-not-to-the-rooms-above',
      severity: 'error',
      comment: 'db/ is queries and migrations: it returns typed results and knows nothing of HTTP, plugins or workers.',
      from: { path: '^db/' },
      to: { path: '^(handlers|plugins|workers)/' },
    },
    {
      name: 'store-engines-stay-inside',
      comment: 'Only the store imports its engines (db/store/portable.ts, mariadb.ts and their parts); everyone else goes '
        + 'through the Store interface (db/store/types.ts), opened by db/store/index.ts.',
      severity: 'error',
      from: { pathNot: STORE },
      to: { path: STORE, pathNot: STORE_FACE },
    },
    {
      name: 'store-from-db-and-the-root-only',
      severity: 'error',
      comment: 'Handlers and workers call the store as app.store and name its type through lib/context.ts: nothing outside db/ '
        + 'and the composition root (and tests) imports the store\'s files.',
      from: { pathNot: ['^db/', COMPOSITION_ROOT, '^test/', '^lib/context[.]ts$'] },
      to: { path: STORE },
    },
    {
      name: 'lib-is-transport-free',
      severity: 'error',
      comment: 'lib/ is shared by every room, so it imports none of them, nor app.ts, nor hapi.',
      from: { path: '^lib/', pathNot: '^lib/context[.]ts$' },
      to: { path: [ROOMS, COMPOSITION_ROOT, HAPI] },
    },
    {
      name: 'lib-context-names-the-parts-by-type',
      severity: 'error',
      comment: 'lib/context.ts types the App, whose parts (queue, dispatcher, adapter env, store) are interfaces of workers/ '
        + 'and db/store/types.ts: it may name them with `import type` (erased at run time) and nothing else of the rooms.',
      from: { path: '^lib/context[.]ts$' },
      to: { path: [ROOMS, COMPOSITION_ROOT, HAPI], pathNot: ['^workers/', '^db/store/types[.]ts$'] },
    },
    {
      name: 'lib-context-imports-the-parts-types-only',
      severity: 'error',
      comment: 'See lib-context-names-the-parts-by-type.',
      from: { path: '^lib/context[.]ts$' },
      to: { path: ['^workers/', '^db/store/types[.]ts$'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // dashboard/ is browser code served as it is: its imports are URLs (/dashboard/vendor/...), not modules of the server;
    // clients/typescript/dist is the client's build output (its declarations name the sources' .ts files, as tsc resolves them)
    exclude: { path: '^(node_modules|data|dashboard|examples|clients/typescript/dist|docs/[.]vitepress/(dist|cache))/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
