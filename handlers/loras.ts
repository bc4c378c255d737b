// The LoRA registry (README "LoRAs"): the public catalogue (getLoraData, getLoraModelsData),
// an owner's own entries (createLora, listOwnLoras). The check of a model input's `loras` at
// submit is handlers/admission.ts resolveInputLoras.
import type { Handler } from './types.ts';
import type { App } from '../lib/context.ts';
import { NotFoundError, ValidationFailedError } from '../lib/errors.ts';
import { findPublicLora, insertLora, listOwnedLoras, listPublicLoras, LORA_PAGE_SIZE } from '../db/loras.ts';
import type { Lora, LoraPage } from '../db/loras.ts';
import { urlProblem } from '../lib/destination-policy.ts';
import { declaresLoras } from './admission.ts';
import type { ValidationItem } from '../lib/errors.ts';

type LoraType = 'style' | 'character' | 'concept' | 'clothing' | 'pose' | 'object';

/** A LoRA as the API shows it (also the account export's). */
export function loraView(l: Lora) {
  return {
    id: l.id, name: l.name, lora_type: l.loraType as LoraType, title: l.title, description: l.description, trigger_words: l.triggerWords,
    preview_url: l.previewUrl, weights_url: l.weightsUrl, base_model: l.baseModel, visibility: l.userId === null ? 'public' as const : 'owned' as const,
    team_id: l.teamId, created_at: l.createdAt,
  };
}

function pageView(p: LoraPage, page: number) {
  return { items: p.items.map(loraView), page, page_size: LORA_PAGE_SIZE, total: p.total, has_more: page * LORA_PAGE_SIZE < p.total };
}

/** Pages beyond what any offset can reach are empty, not a database error. */
const LAST_PAGE = 50_000_000;

/** GET /app/lora-data?name=&lora_type=: one public LoRA. */
export const getLoraData: Handler<'getLoraData'> = async ({ app, query }) => {
  const lora = await findPublicLora(app.db, query.name, query.lora_type);
  if (!lora) throw new NotFoundError(`no public ${query.lora_type} LoRA named ${query.name}`);
  return loraView(lora);
};

/** GET /app/lora-models-data?lora_type=&q=&page=: public LoRAs of one type. */
export const getLoraModelsData: Handler<'getLoraModelsData'> = async ({ app, query }) => {
  const page = query.page ?? 1;
  if (page > LAST_PAGE) return { items: [], page, page_size: LORA_PAGE_SIZE, total: null, has_more: false };
  return pageView(await listPublicLoras(app.db, query.lora_type, query.q ?? '', page), page);
};

/** GET /app/loras: the caller's (or team's) own LoRAs. */
export const listOwnLoras: Handler<'listOwnLoras'> = async ({ app, caller, query }) => {
  const page = query.page ?? 1;
  if (page > LAST_PAGE) return { items: [], page, page_size: LORA_PAGE_SIZE, total: null, has_more: false };
  return pageView(await listOwnedLoras(app.db, caller.owner, query.lora_type, query.q ?? '', page), page);
};

/** The model families whose input schemas declare `loras` (spec/v1/models/*.yaml): where a LoRA can be used. */
export function loraFamilies(app: App): Set<string> {
  const families = new Set<string>();
  for (const model of app.spec.models.values()) if (declaresLoras(app, model)) families.add(model.family);
  return families;
}

/** POST /app/loras: registers an owned LoRA (the team's with team_id). */
export const createLora: Handler<'createLora'> = async ({ app, caller, body, h }) => {
  // the weights (and preview) are fetched by whoever runs the model, on the gateway's say-so: the
  // destination rule of a webhook applies (no loopback, private, link-local or internal address)
  const policy = { allowInsecure: app.config.webhookAllowInsecure };
  const problems: ValidationItem[] = [];
  for (const field of ['weights_url', 'preview_url'] as const) {
    const url = body[field];
    const problem = typeof url === 'string' ? urlProblem(url, policy, field) : null;
    if (problem) problems.push({ loc: ['body', field], msg: problem, type: 'value_error' });
  }
  if (problems.length) throw new ValidationFailedError(problems);
  const families = loraFamilies(app);
  if (!families.has(body.base_model)) {
    throw new ValidationFailedError([{ loc: ['body', 'base_model'], msg: `no model family of this gateway takes LoRAs of base model "${body.base_model}"; families that take LoRAs: ${[...families].join(', ') || 'none'}`, type: 'value_error' }]);
  }
  const lora = await insertLora(app.db, caller.owner, {
    name: body.name, loraType: body.lora_type, title: body.title ?? body.name, description: body.description ?? '', baseModel: body.base_model,
    triggerWords: body.trigger_words ?? [], previewUrl: body.preview_url ?? null, weightsUrl: body.weights_url,
  }, app.clock());
  return h.response(loraView(lora)).code(201);
};
