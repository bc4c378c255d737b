import type { Request, ResponseToolkit, ResponseObject } from '@hapi/hapi';
import type { App } from '../app.ts';
import type { Caller } from '../plugins/auth.ts';
import type { ModelInfo } from '../spec/catalog.ts';

export interface HandlerContext {
  app: App;
  request: Request;
  h: ResponseToolkit;
  operationId: string;
  /** the validated body, with the spec's defaults applied */
  body: Record<string, unknown>;
  /** validated and coerced query parameters */
  query: Record<string, unknown>;
  /** validated and coerced path parameters */
  params: Record<string, unknown>;
  /** null on public operations */
  caller: Caller | null;
  /** set on model endpoints */
  model?: ModelInfo;
}

/** Returns a JSON-serialisable value (200) or a hapi response; throws Boom for errors. */
export type Handler = (ctx: HandlerContext) => Promise<unknown>;
