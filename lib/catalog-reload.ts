// Reloading the catalog without a restart (docs/operating/model-files.md, "Reloading the
// catalog"): SIGHUP or POST /auth/admin_reload_catalog reads the shipped spec and MODELS_DIR
// again. A catalog that does not load changes nothing and the answer says why (the start-up's own
// message, naming file and key). What a running server cannot change stays as it started: the
// root openapi.yaml (routes, security, the parts every model endpoint shares) and each existing
// model endpoint's route settings; a reload that changes them is refused with the reason (restart
// to apply them). New models get their routes; a removed model answers 404.
//
// The swap is one assignment of `spec`: a request holds the catalog it started with
// (plugins/spec-routes.ts takes it once, at the start of the handler), so requests in flight
// finish on it. Reloads run one at a time. The process that reloaded tells the others through
// the catalog broadcast (workers/queue/amqp/catalog-broadcast.ts); each reads the files itself.
import type { Operation } from 'openapi-backend';
import type { CatalogChange, CatalogControl, LoadedSpec } from './context.ts';

export type { CatalogChange, CatalogControl };

/** A reload that changed nothing, and why. */
export class CatalogReloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogReloadError';
  }
}

export interface CatalogHost {
  /** the catalog in use */
  current(): LoadedSpec;
  /** makes `spec` the catalog in use */
  swap(spec: LoadedSpec): void;
  /** reads the files again (app.ts loadSpec with this process's SPEC_DIR and MODELS_DIR) */
  load(): Promise<LoadedSpec>;
  /** tells the other processes (the catalog broadcast); absent with one process */
  publish?: (fingerprint: string) => Promise<void>;
  log: (msg: string, extra?: Record<string, unknown>) => void;
}

/** The parts of a model operation its hapi route is built from (plugins/spec-routes.ts routeOptionsFor). */
const ROUTE_KEYS = ['method', 'path', 'security', 'x-rate-limit', 'x-team-permission', 'x-required-role', 'x-impersonation', 'x-raw-body', 'x-no-store', 'x-audit', 'x-audit-refusal'];

/** A model operation's route settings: equal signatures mean the running route still fits. */
export function routeSignature(op: Operation): string {
  const o = op as unknown as Record<string, unknown>;
  const params = ((o.parameters ?? []) as Array<{ in?: string; name?: string }>).map((p) => `${p.in}:${String(p.name).toLowerCase()}`).sort();
  const content = Object.keys((o.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {}).sort();
  return JSON.stringify([...ROUTE_KEYS.map((k) => o[k] ?? null), params, content]);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function createCatalogControl(host: CatalogHost): CatalogControl {
  let addRoutes: ((operations: readonly Operation[], next: LoadedSpec) => void) | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  async function reloadNow(broadcast: boolean): Promise<CatalogChange> {
    const before = host.current();
    let next: LoadedSpec;
    try {
      next = await host.load();
    } catch (err) {
      throw new CatalogReloadError(`the catalog was not reloaded: ${(err as Error).message}`);
    }
    if (!sameJson(next.root, before.root)) {
      throw new CatalogReloadError('the catalog was not reloaded: the root document (openapi.yaml: routes, security and the parts every model endpoint shares) changed, and those apply at start-up only; restart the gateway to apply it');
    }
    const added: string[] = [];
    const changed: string[] = [];
    for (const slug of next.models.keys()) {
      const old = before.operationById.get(slug);
      if (!before.models.has(slug) || !old) {
        added.push(slug);
        continue;
      }
      const now = next.operationById.get(slug)!;
      if (routeSignature(old) !== routeSignature(now)) {
        const file = next.sources.get(slug);
        throw new CatalogReloadError(`the catalog was not reloaded: ${file ? `${file}: ` : ''}${slug}: its route settings (security, parameters, rate limit, team permission, role) changed, and those apply at start-up only; restart the gateway to apply them`);
      }
      if (!sameJson(old, now)) changed.push(slug);
    }
    const removed = [...before.models.keys()].filter((slug) => !next.models.has(slug));
    const change: CatalogChange = { models: next.models.size, added, removed, changed, unchanged: next.fingerprint === before.fingerprint, fingerprint: next.fingerprint };
    if (change.unchanged) return change;
    try {
      addRoutes?.(added.map((slug) => next.operationById.get(slug)!), next);
    } catch (err) {
      throw new CatalogReloadError(`the catalog was not reloaded: ${(err as Error).message}`);
    }
    host.swap(next);
    host.log('catalog reloaded', { models: change.models, added, removed, changed });
    if (broadcast && host.publish) {
      // the others read the same files; one that cannot reload logs why and keeps its catalog
      await host.publish(next.fingerprint).catch((err: Error) => host.log('catalog reload: could not tell the other processes', { error: err.message }));
    }
    return change;
  }

  return {
    reload({ broadcast = true } = {}) {
      const run = queue.then(() => reloadNow(broadcast));
      queue = run.catch(() => undefined);
      return run;
    },
    onNewModels(fn) {
      addRoutes = fn;
    },
  };
}

/**
 * A broadcast from another process: reload unless this process already runs that catalog. A
 * failure is logged (this process keeps its catalog), never thrown.
 */
export async function followBroadcast(control: CatalogControl, host: Pick<CatalogHost, 'current' | 'log'>, fingerprint: string): Promise<void> {
  if (host.current().fingerprint === fingerprint) return;
  try {
    const change = await control.reload({ broadcast: false });
    if (change.fingerprint !== fingerprint) host.log('catalog reload: the files here load to another catalog than the process that asked for the reload (are the model files the same on every host?)', { here: change.fingerprint, asked: fingerprint });
  } catch (err) {
    host.log('catalog reload asked by another process failed; this process keeps its catalog', { error: (err as Error).message });
  }
}
