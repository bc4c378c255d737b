// What each provider the shipped catalog maps to accepts, for the fakes that check every shipped
// mapping (test/adapters/shipped-catalog.test.ts). fal endpoints come from fal's own OpenAPI
// documents where one was published to us (test/fixtures/providers/fal, see its README); the rest
// are transcribed from the providers' documentation pages, each with its source, checked
// 2026-11-29. A fake refuses a field the provider does not document (additionalProperties false
// on the request body), a value outside its enums and ranges, and a missing required field.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type JsonSchema = Record<string, unknown>;

export interface ProviderSchema {
  /** where the schema comes from */
  source: string;
  /** the request body's JSON Schema (for Replicate: the prediction's `input`) */
  schema: JsonSchema;
}

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'providers');

/** A fal endpoint's OpenAPI document (as fal serves it per endpoint), from the fixtures. */
export function falOpenApi(endpoint: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'fal', `${endpoint.replaceAll('/', '__')}.openapi.json`), 'utf8')) as Record<string, unknown>;
}

/** The submit's request body schema of a fal OpenAPI document, closed to undocumented fields. */
function falInput(endpoint: string): ProviderSchema {
  const doc = falOpenApi(endpoint) as { paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>; components: { schemas: Record<string, JsonSchema> } };
  const post = doc.paths[`/${endpoint}`]!.post!;
  const ref = post.requestBody.content['application/json']!.schema.$ref;
  const name = ref.split('/').pop()!;
  const schemas = structuredClone(doc.components.schemas);
  schemas[name] = { ...schemas[name], additionalProperties: false };
  return { source: `fal OpenAPI document of ${endpoint} (test/fixtures/providers/fal)`, schema: { $ref: ref, components: { schemas } } };
}

const str = { type: 'string' };
const bool = { type: 'boolean' };
const urls = { type: 'array', items: str };
const KLING_DURATIONS = ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15'];
const KLING_RATIOS = ['16:9', '9:16', '1:1'];
const KLING_SHOTS = { type: 'string', enum: ['customize', 'intelligent'] };
const FLUX_RATIOS = ['21:9', '16:9', '4:3', '3:2', '1:1', '2:3', '3:4', '9:16', '9:21'];

function closed(properties: Record<string, unknown>, required: string[] = []): JsonSchema {
  return { type: 'object', additionalProperties: false, required, properties };
}

/** Kling 3.0 / O3 on fal (fal.ai/models/fal-ai/kling-video/v3/{standard,pro,4k}/...llms.txt and fal's model API reference pages) */
function kling(endpoint: string, extra: Record<string, unknown>, required: string[]): ProviderSchema {
  return {
    source: `fal.ai/models/${endpoint}/llms.txt, input schema`,
    schema: closed({
      prompt: { type: 'string', maxLength: 2500 },
      multi_prompt: { type: 'array' },
      duration: { type: 'string', enum: KLING_DURATIONS },
      generate_audio: bool,
      shot_type: KLING_SHOTS,
      elements: { type: 'array' },
      ...extra,
    }, required),
  };
}

const klingT2v = (endpoint: string, withGuidance: boolean) => kling(endpoint, {
  aspect_ratio: { type: 'string', enum: KLING_RATIOS },
  voice_ids: urls,
  ...(withGuidance ? { negative_prompt: str, cfg_scale: { type: 'number', minimum: 0, maximum: 1 } } : {}),
}, ['prompt']);

const klingI2v = (endpoint: string, withGuidance: boolean) => kling(endpoint, {
  start_image_url: str,
  end_image_url: str,
  voice_ids: urls,
  ...(withGuidance ? { negative_prompt: str, cfg_scale: { type: 'number', minimum: 0, maximum: 1 } } : {}),
}, ['start_image_url']);

const klingMotion = (endpoint: string): ProviderSchema => ({
  source: `fal.ai/models/${endpoint}/llms.txt, input schema`,
  schema: closed({
    prompt: str,
    image_url: str,
    video_url: str,
    character_orientation: { type: 'string', enum: ['image', 'video'] },
    keep_original_sound: bool,
    elements: { type: 'array' },
  }, ['image_url', 'video_url', 'character_orientation']),
});

/** FLUX.1 Kontext [pro] / [max] on fal (fal.ai/models/fal-ai/flux-pro/kontext/llms.txt; fal's model API reference) */
const kontext = (endpoint: string): ProviderSchema => ({
  source: `fal.ai/models/${endpoint}/llms.txt, input schema`,
  schema: closed({
    prompt: str,
    image_url: str,
    seed: { type: 'integer' },
    guidance_scale: { type: 'number', minimum: 1, maximum: 20 },
    sync_mode: bool,
    num_images: { type: 'integer', minimum: 1, maximum: 4 },
    output_format: { type: 'string', enum: ['jpeg', 'png'] },
    safety_tolerance: { type: 'string', enum: ['1', '2', '3', '4', '5', '6'] },
    enhance_prompt: bool,
    aspect_ratio: { type: 'string', enum: FLUX_RATIOS },
  }, ['prompt', 'image_url']),
});

/** Recraft V3's styles, as fal's text-to-image document lists them (image-to-image takes the same). */
function recraftStyles(): unknown {
  const doc = falOpenApi('fal-ai/recraft/v3/text-to-image') as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  return doc.components.schemas.RecraftV3TextToImageInput!.properties.style;
}

/** OpenAI's image generation request (platform.openai.com/docs/api-reference/images/create) */
const openAiImages = (): ProviderSchema => ({
  source: 'platform.openai.com/docs/api-reference/images/create (GPT image models)',
  schema: closed({
    model: str,
    prompt: { type: 'string', maxLength: 32000 },
    n: { type: 'integer', minimum: 1, maximum: 10 },
    size: { type: 'string', enum: ['auto', '1024x1024', '1536x1024', '1024x1536'] },
    quality: { type: 'string', enum: ['auto', 'high', 'medium', 'low'] },
    background: { type: 'string', enum: ['auto', 'transparent', 'opaque'] },
    moderation: { type: 'string', enum: ['auto', 'low'] },
    output_format: { type: 'string', enum: ['png', 'jpeg', 'webp'] },
    output_compression: { type: 'integer', minimum: 0, maximum: 100 },
    user: str,
  }, ['prompt']),
});

/** The multipart fields of OpenAI's image edits (platform.openai.com/docs/api-reference/images/createEdit), as text. */
const openAiEdits = (): ProviderSchema => ({
  source: 'platform.openai.com/docs/api-reference/images/createEdit (GPT image models; multipart fields)',
  schema: closed({
    image: { type: 'object' },
    model: str,
    prompt: { type: 'string', maxLength: 32000 },
    n: { type: 'string', pattern: '^([1-9]|10)$' },
    size: { type: 'string', enum: ['auto', '1024x1024', '1536x1024', '1024x1536'] },
    quality: { type: 'string', enum: ['auto', 'high', 'medium', 'low'] },
    background: { type: 'string', enum: ['auto', 'transparent', 'opaque'] },
    input_fidelity: { type: 'string', enum: ['high', 'low'] },
    output_format: { type: 'string', enum: ['png', 'jpeg', 'webp'] },
    output_compression: str,
    user: str,
  }, ['image', 'prompt']),
});

/** Every provider model the shipped catalog maps to, by adapter and upstream model. */
export function providerSchema(adapter: string, upstreamModel: string, category: string): ProviderSchema | undefined {
  switch (`${adapter} ${upstreamModel}`) {
    case 'fal fal-ai/veo3.1':
    case 'fal fal-ai/veo3.1/fast':
    case 'fal fal-ai/veo3.1/image-to-video':
    case 'fal fal-ai/veo3.1/fast/image-to-video':
    case 'fal fal-ai/flux/dev':
    case 'fal fal-ai/flux-pro/v1.1-ultra':
    case 'fal fal-ai/recraft/v3/text-to-image':
    case 'fal fal-ai/sync-lipsync/v2':
    case 'fal fal-ai/stable-audio-25/text-to-audio':
      return falInput(upstreamModel);
    case 'fal fal-ai/kling-video/v3/standard/text-to-video':
    case 'fal fal-ai/kling-video/v3/pro/text-to-video':
      return klingT2v(upstreamModel, true);
    // the 4K endpoints document neither negative_prompt nor cfg_scale
    case 'fal fal-ai/kling-video/v3/4k/text-to-video':
      return klingT2v(upstreamModel, false);
    case 'fal fal-ai/kling-video/v3/standard/image-to-video':
    case 'fal fal-ai/kling-video/v3/pro/image-to-video':
      return klingI2v(upstreamModel, true);
    case 'fal fal-ai/kling-video/v3/4k/image-to-video':
      return klingI2v(upstreamModel, false);
    case 'fal fal-ai/kling-video/o3/pro/reference-to-video':
      return kling(upstreamModel, { start_image_url: str, end_image_url: str, image_urls: urls, aspect_ratio: { type: 'string', enum: KLING_RATIOS } }, ['prompt']);
    case 'fal fal-ai/kling-video/v3/standard/motion-control':
    case 'fal fal-ai/kling-video/v3/pro/motion-control':
      return klingMotion(upstreamModel);
    case 'fal fal-ai/kling-video/o3/pro/video-to-video/edit':
      return {
        source: 'fal.ai/models/fal-ai/kling-video/o3/pro/video-to-video/edit/llms.txt, input schema',
        schema: closed({ prompt: str, video_url: str, image_urls: urls, keep_audio: bool, elements: { type: 'array' } }, ['prompt', 'video_url']),
      };
    case 'fal fal-ai/flux-pro/kontext':
    case 'fal fal-ai/flux-pro/kontext/max':
      return kontext(upstreamModel);
    case 'fal fal-ai/recraft/v3/image-to-image':
      return {
        source: 'fal.ai/models/fal-ai/recraft/v3/image-to-image/api, input schema (styles as the text-to-image document)',
        schema: closed({
          prompt: { type: 'string', minLength: 1, maxLength: 1000 },
          image_url: str,
          strength: { type: 'number', minimum: 0, maximum: 1 },
          style: recraftStyles(),
          colors: { type: 'array' },
          style_id: str,
          negative_prompt: str,
          sync_mode: bool,
        }, ['prompt', 'image_url']),
      };
    case 'fal fal-ai/minimax/speech-2.8-hd':
      return {
        source: 'fal.ai/models/fal-ai/minimax/speech-2.8-hd/llms.txt, input schema (VoiceSetting, AudioSetting as fal\'s MiniMax speech documents)',
        schema: closed({
          prompt: { type: 'string', minLength: 1, maxLength: 5000 },
          voice_setting: closed({
            voice_id: { type: 'string', enum: ['Wise_Woman', 'Friendly_Person', 'Inspirational_girl', 'Deep_Voice_Man', 'Calm_Woman', 'Casual_Guy', 'Lively_Girl', 'Patient_Man', 'Young_Knight', 'Determined_Man', 'Lovely_Girl', 'Decent_Boy', 'Imposing_Manner', 'Elegant_Man', 'Abbess', 'Sweet_Girl_2', 'Exuberant_Girl'] },
            speed: { type: 'number', minimum: 0.5, maximum: 2 },
            vol: { type: 'number', minimum: 0.01, maximum: 10 },
            pitch: { type: 'integer', minimum: -12, maximum: 12 },
            emotion: str,
            english_normalization: bool,
          }),
          audio_setting: closed({
            format: { type: 'string', enum: ['mp3', 'pcm', 'flac'] },
            sample_rate: { type: 'integer' },
            channel: { type: 'integer' },
            bitrate: { type: 'integer' },
          }),
          language_boost: str,
          output_format: { type: 'string', enum: ['url', 'hex'] },
          pronunciation_dict: { type: 'object' },
        }, ['prompt']),
      };
    case 'replicate black-forest-labs/flux-dev':
      return {
        source: 'replicate.com/black-forest-labs/flux-dev/api, input schema',
        schema: closed({
          prompt: str,
          aspect_ratio: { type: 'string', enum: ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] },
          image: str,
          prompt_strength: { type: 'number', minimum: 0, maximum: 1 },
          num_outputs: { type: 'integer', minimum: 1, maximum: 4 },
          num_inference_steps: { type: 'integer', minimum: 1, maximum: 50 },
          guidance: { type: 'number', minimum: 0, maximum: 10 },
          seed: { type: 'integer' },
          output_format: { type: 'string', enum: ['webp', 'jpg', 'png'] },
          output_quality: { type: 'integer', minimum: 0, maximum: 100 },
          disable_safety_checker: bool,
          go_fast: bool,
          megapixels: { type: 'string', enum: ['1', '0.25'] },
        }, ['prompt']),
      };
    case 'replicate black-forest-labs/flux-1.1-pro':
      return {
        source: 'replicate.com/black-forest-labs/flux-1.1-pro/api, input schema',
        schema: closed({
          prompt: str,
          image_prompt: str,
          aspect_ratio: { type: 'string', enum: ['custom', '1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'] },
          width: { type: 'integer', minimum: 256, maximum: 1440 },
          height: { type: 'integer', minimum: 256, maximum: 1440 },
          safety_tolerance: { type: 'integer', minimum: 1, maximum: 6 },
          seed: { type: 'integer' },
          prompt_upsampling: bool,
          output_format: { type: 'string', enum: ['webp', 'jpg', 'png'] },
          output_quality: { type: 'integer', minimum: 0, maximum: 100 },
        }, ['prompt']),
      };
    case 'openai-compatible gpt-image-1':
    case 'openai-compatible gpt-image-1-mini':
      return category === 'image-to-image' ? openAiEdits() : openAiImages();
    case 'openai-compatible gpt-4o-mini':
      return {
        source: 'platform.openai.com/docs/api-reference/chat/create',
        schema: closed({
          model: str,
          messages: { type: 'array', minItems: 1, items: closed({ role: { type: 'string', enum: ['system', 'user'] }, content: { type: 'string', minLength: 1 } }, ['role', 'content']) },
          max_tokens: { type: 'integer', minimum: 1 },
          temperature: { type: 'number', minimum: 0, maximum: 2 },
        }, ['model', 'messages']),
      };
    case 'wavespeed wavespeed-ai/hunyuan3d-v3/image-to-3d':
      return {
        source: 'wavespeed.ai/models/wavespeed-ai/hunyuan3d-v3/image-to-3d, parameters',
        schema: closed({
          input_image_url: str,
          back_image_url: str,
          left_image_url: str,
          right_image_url: str,
          enable_pbr: bool,
          face_count: { type: 'integer', minimum: 40000, maximum: 1500000 },
          generate_type: { type: 'string', enum: ['Normal', 'LowPoly', 'Geometry'] },
          polygon_type: { type: 'string', enum: ['triangle', 'quadrilateral'] },
        }, ['input_image_url']),
      };
    default:
      return undefined;
  }
}
