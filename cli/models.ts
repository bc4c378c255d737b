// Operator commands on model files (docs/operating/model-files.md), run where the files are, with
// no gateway: `models check [DIR]` loads the catalog exactly as start-up does and says what is
// wrong in start-up's own words, for CI; `models import FILE` drafts a model file from a
// provider's published schema (spec/import.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import { CliError, EXIT } from './client.ts';
import type { Output } from './commands.ts';
import { checkModels } from '../main.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { SpecError } from '../spec/load.ts';
import { catalogVocabulary } from '../spec/catalog.ts';
import { importModel, ImportError } from '../spec/import.ts';
import type { ImportProvider } from '../spec/import.ts';

/** `mediagate models check [DIR ...]`: the shipped catalog plus DIR (or MODELS_DIR), offline. */
export async function modelsCheckCommand(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Output> {
  let checked: Awaited<ReturnType<typeof checkModels>>;
  try {
    checked = await checkModels(dirs, env);
  } catch (err) {
    if (err instanceof SpecError || err instanceof ConfigError) throw new CliError(err.message, EXIT.validation);
    throw err;
  }
  const human = Object.entries(checked.files).map(([file, slugs]) => `${file}: ${slugs.length} model${slugs.length === 1 ? '' : 's'} (${slugs.join(', ')})`);
  human.push(`The catalog loads: ${checked.models.length} models.`);
  return { human, json: { ok: true, models: checked.models, files: checked.files, warnings: checked.warnings }, warnings: checked.warnings };
}

export interface ImportArgs {
  provider?: string;
  model?: string;
  slug?: string;
  category?: string;
  tier?: string;
}

/**
 * `mediagate models import FILE --provider fal|replicate --model ID --slug SLUG [--category C]
 * [--tier T]`: prints a model file drafted from FILE, a fal endpoint's OpenAPI document or a
 * Replicate model's openapi_schema (or the model or version JSON holding it), JSON or YAML.
 */
export async function modelsImportCommand(file: string | undefined, args: ImportArgs, env: NodeJS.ProcessEnv = process.env, today = new Date()): Promise<Output> {
  if (!file) throw new CliError('models import needs the provider\'s schema file (see `mediagate --help`)', EXIT.usage);
  if (args.provider !== 'fal' && args.provider !== 'replicate') throw new CliError('--provider must be fal or replicate (see `mediagate --help`)', EXIT.usage);
  if (!args.model) throw new CliError('--model must name the provider\'s model (fal-ai/veo3.1, owner/name on Replicate) (see `mediagate --help`)', EXIT.usage);
  if (!args.slug) throw new CliError('--slug must name the new model endpoint, e.g. clip-v1-fast-text-to-video (see `mediagate --help`)', EXIT.usage);
  let raw: unknown;
  try {
    raw = yaml.load(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON or YAML: ${(err as Error).message.split('\n')[0]}`}`, EXIT.validation);
  }
  let vocabulary: ReturnType<typeof catalogVocabulary>;
  try {
    const config = loadConfig(env);
    vocabulary = catalogVocabulary(yaml.load(await fs.readFile(path.join(config.specDir, 'openapi.yaml'), 'utf8')) as Record<string, unknown>);
  } catch (err) {
    if (err instanceof SpecError || err instanceof ConfigError) throw new CliError(err.message, EXIT.validation);
    throw err;
  }
  try {
    const imported = importModel(raw, {
      provider: args.provider as ImportProvider, model: args.model, slug: args.slug, vocabulary,
      ...(args.category ? { category: args.category } : {}), ...(args.tier ? { tier: args.tier } : {}),
      source: path.basename(file), date: today.toISOString().slice(0, 10),
    });
    return { human: imported.text.replace(/\n$/, '').split('\n'), json: { slug: args.slug, model: imported.model, left_out: imported.leftOut, yaml: imported.text } };
  } catch (err) {
    if (err instanceof ImportError) throw new CliError(`${file}: ${err.message}`, EXIT.validation);
    throw err;
  }
}
