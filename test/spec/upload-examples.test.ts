// The spec's examples of uploaded files (file_url, a media asset's url) have the shape the gateway
// hands out, and no example puts a file at an upload address that uploads cannot take (a LoRA's
// weights: uploads take images, video and audio only). A client copying an example gets a URL the
// gateway registers, not a 404 or a 422.
import test from 'ava';
import fs from 'node:fs';
import path from 'node:path';
import { uploadKeyOfUrl, uploadKind } from '../../lib/uploads.ts';

const SPEC = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'spec', 'v1', 'openapi.yaml'), 'utf8');
const FILES = 'https://gateway.example.com/files';

test('every example URL of an uploaded file is one the gateway could have handed out', (t) => {
  const urls = [...SPEC.matchAll(/https:\/\/gateway\.example\.com\/files\/uploads\/[^"'\s)]+/g)].map((m) => m[0]);
  t.true(urls.length > 0);
  for (const url of new Set(urls)) {
    t.truthy(uploadKeyOfUrl(url, FILES), `${url} has the shape of an upload's file URL`);
    t.truthy(uploadKind(url), `${url} has an extension uploads take`);
  }
});
