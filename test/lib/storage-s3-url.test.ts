// STORAGE_URL: the S3-compatible storage's one-line configuration, checked at start-up with a
// message naming the problem; and the upload types the filename's extension selects.
import test from 'ava';
import { parseStorageUrl } from '../../lib/storage-s3-url.ts';
import { loadConfig } from '../../config.ts';
import { uploadKind, uploadKeyOfUrl, newUploadKey } from '../../lib/uploads.ts';

test('a bucket with a prefix, an endpoint and a region', (t) => {
  t.deepEqual(parseStorageUrl('s3://media-bucket/gw/prod?endpoint=http://minio:9000&region=eu-west-1'), {
    bucket: 'media-bucket', prefix: 'gw/prod', endpoint: 'http://minio:9000', region: 'eu-west-1', forcePathStyle: true,
  });
  t.deepEqual(parseStorageUrl('s3://media-bucket'), { bucket: 'media-bucket', prefix: '', endpoint: undefined, region: 'us-east-1', forcePathStyle: false });
  t.is(parseStorageUrl('s3://media-bucket?endpoint=https://r2.example.com&force_path_style=false').forcePathStyle, false);
});

test('bad STORAGE_URL values stop start-up naming the variable and the problem', (t) => {
  for (const [value, message] of [
    ['https://bucket', /only s3:\/\//],
    ['s3://AKIA:secret@bucket', /must not carry credentials/],
    ['s3://b', /not a bucket name/],
    ['s3://bucket?endpont=http://x', /unknown parameter "endpont"/],
    ['s3://bucket?endpoint=minio:9000', /endpoint must be/],
    ['s3://bucket?endpoint=http://minio-user:s3cret@minio:9000', /endpoint must not carry credentials/],
    ['s3://bucket?force_path_style=yes', /force_path_style must be/],
  ] as const) {
    const err = t.throws(() => loadConfig({ STORAGE_URL: value }), { message: new RegExp(`^invalid configuration: STORAGE_URL: .*${message.source}`) }, value);
    t.false(/AKIA|minio-user|s3cret/.test(err.message), err.message);
  }
  const cfg = loadConfig({ STORAGE_URL: 's3://bucket?endpoint=http://127.0.0.1:9000', STORAGE_S3_ACCESS_KEY_ID: 'id', STORAGE_S3_SECRET_ACCESS_KEY: 'secret' });
  t.like(cfg.storageS3, { bucket: 'bucket', accessKeyId: 'id', secretAccessKey: 'secret' });
  t.is(loadConfig({}).storageS3, null, 'local storage is the default');
  t.deepEqual(loadConfig({}).uploadLimits, { image: 20 * 1024 * 1024, video: 500 * 1024 * 1024, audio: 100 * 1024 * 1024 });
});

test('the extension selects the type; the stored name is made safe; only upload keys map back from URLs', (t) => {
  t.like(uploadKind('../../etc/Passwd Photo.JPG'), { extension: 'jpg', contentType: 'image/jpeg', mediaType: 'image', safeName: 'Passwd-Photo.jpg' });
  t.is(uploadKind('clip.webm')?.mediaType, 'video');
  t.is(uploadKind('x.svg'), undefined);
  t.is(uploadKind('x.toString'), undefined, 'no prototype keys');
  const key = newUploadKey(uploadKind('a.png')!);
  t.is(uploadKeyOfUrl(`https://gw.example/files/${key}`, 'https://gw.example/files'), key);
  t.is(uploadKeyOfUrl('https://gw.example/files/outputs/x/0.png', 'https://gw.example/files'), undefined);
  t.is(uploadKeyOfUrl('https://gw.example/files/uploads/../outputs/x.png', 'https://gw.example/files'), undefined);
});
