// Operator commands on model files (docs/operating/model-files.md), run where the files are, with
// no gateway: `models check [DIR]` loads the catalog exactly as start-up does and says what is
// wrong in start-up's own words, for CI.
import { CliError, EXIT } from './client.ts';
import type { Output } from './commands.ts';
import { checkModels } from '../main.ts';
import { ConfigError } from '../config.ts';
import { SpecError } from '../spec/load.ts';

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
  return { human, json: { ok: true, models: checked.models, files: checked.files } };
}
