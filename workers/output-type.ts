// What an output file is, decided from its bytes, never from what the adapter or the upstream
// claims: the stored extension (and so the Content-Type /files/ serves) comes from here. The type
// must match the model's declared output kind (x-model.output), so an "image" that is really HTML
// or SVG fails the prediction instead of being served as markup from the API's origin.
//
// Binary formats are identified by their magic numbers (file-type). Text formats have none, so
// each kind that legitimately produces text has an explicit rule:
//   text     any valid UTF-8: stored as .json when it parses as JSON, else .txt (text/plain);
//   model3d  glTF JSON (a JSON object with asset.version) as .gltf, or Wavefront OBJ (UTF-8
//            whose lines are all OBJ statements or comments) as .obj;
//   image, video, audio: no text form is accepted (this is what refuses SVG and HTML).
import fs from 'node:fs/promises';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import { AdapterError } from './adapters/types.ts';
import type { AdapterFile, MediaKind } from './adapters/types.ts';

export interface OutputType {
  contentType: string;
  extension: string;
}

/** what a detected MIME type must look like for each declared kind */
const BINARY_RULES: Readonly<Record<MediaKind, (mime: string) => boolean>> = {
  image: (mime) => mime.startsWith('image/'),
  video: (mime) => mime.startsWith('video/'),
  audio: (mime) => mime.startsWith('audio/'),
  model3d: (mime) => mime.startsWith('model/'),
  // A text model that returns a binary file has gone wrong.
  text: () => false,
};

const KIND_NAMES: Readonly<Record<MediaKind, string>> = {
  image: 'an image',
  video: 'a video',
  audio: 'an audio file',
  model3d: 'a 3D model',
  text: 'text',
};

/** text formats are judged on their first MiB: enough for a format check, bounded for memory */
const TEXT_SAMPLE_BYTES = 1024 * 1024;
const OBJ_STATEMENT = /^(#|v|vt|vn|vp|f|l|p|o|g|s|mtllib|usemtl|cstype|deg|curv|curv2|surf|parm|trim|hole|end)(\s|$)/;

async function sample(file: AdapterFile): Promise<Uint8Array> {
  if (file.data) return file.data.subarray(0, TEXT_SAMPLE_BYTES);
  const handle = await fs.open(file.path, 'r');
  try {
    const buffer = new Uint8Array(TEXT_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, TEXT_SAMPLE_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** the text of a UTF-8 sample (a character cut at the sample's end is not an error), or null */
function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return null;
  }
}

function textType(kind: MediaKind, text: string, complete: boolean): OutputType | null {
  if (text.includes('\u0000')) return null;
  let json: unknown;
  let isJson = false;
  if (complete) {
    try {
      json = JSON.parse(text);
      isJson = true;
    } catch {
      // not JSON
    }
  }
  if (kind === 'text') return isJson ? { contentType: 'application/json', extension: 'json' } : { contentType: 'text/plain', extension: 'txt' };
  if (kind !== 'model3d') return null;
  if (isJson) {
    const asset = typeof json === 'object' && json !== null ? (json as { asset?: { version?: unknown } }).asset : undefined;
    return typeof asset?.version === 'string' ? { contentType: 'model/gltf+json', extension: 'gltf' } : null;
  }
  const lines = text.split(/\r?\n/);
  // The sample may end mid-line; that last piece is not judged.
  if (!complete) lines.pop();
  const statements = lines.map((line) => line.trim()).filter((line) => line !== '');
  if (statements.length === 0 || !statements.every((line) => OBJ_STATEMENT.test(line))) return null;
  return statements.some((line) => /^v\s/.test(line)) ? { contentType: 'model/obj', extension: 'obj' } : null;
}

/**
 * The stored type of output `index` of a model declaring `kind`; throws a non-retryable
 * AdapterError (shown to the user) when the bytes are not that kind of file.
 */
export async function identifyOutput(file: AdapterFile, kind: MediaKind, index: number): Promise<OutputType> {
  const mismatch = (found: string) => new AdapterError(`output ${index + 1} is not ${KIND_NAMES[kind]} (its content is ${found}); it was not stored`, false);
  const detected = file.data ? await fileTypeFromBuffer(file.data) : await fileTypeFromFile(file.path);
  if (detected) {
    if (!BINARY_RULES[kind](detected.mime)) throw mismatch(detected.mime);
    return { contentType: detected.mime, extension: detected.ext };
  }
  const bytes = await sample(file);
  const size = file.data ? file.data.byteLength : (await fs.stat(file.path)).size;
  const text = utf8(bytes);
  if (text === null) throw mismatch('of an unknown type');
  const type = textType(kind, text, bytes.byteLength === size);
  if (!type) throw mismatch(/^\s*</.test(text) ? 'markup (HTML, SVG or XML)' : 'text');
  return type;
}
