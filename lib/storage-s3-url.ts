// STORAGE_URL, the S3-compatible storage's one-line configuration (docs/api/uploads.md, "Storage and
// uploads"): its parsing and the settings it makes. Kept apart from lib/storage-s3.ts, which loads
// the AWS SDK, so that reading the configuration (config.ts) does not: the SDK is imported only
// when STORAGE_URL selects a bucket (app.ts).

export interface S3StorageConfig {
  bucket: string;
  /** prepended to every key in the bucket (`outputs/…` becomes `<prefix>/outputs/…`); '' for none */
  prefix: string;
  /** unset: AWS S3 itself */
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** unset: the AWS SDK's default chain (environment, profile, instance role) */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
}

/** Parses STORAGE_URL `s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true`; throws naming the problem. */
export function parseStorageUrl(raw: string): Omit<S3StorageConfig, 'accessKeyId' | 'secretAccessKey'> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('must be s3://bucket[/prefix]?endpoint=…&region=…');
  }
  if (u.protocol !== 's3:') throw new Error('only s3:// is supported (unset it for local files under STORAGE_DIR)');
  if (u.username || u.password) throw new Error('must not carry credentials: set STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY');
  const bucket = u.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`"${bucket}" is not a bucket name`);
  const known = new Set(['endpoint', 'region', 'force_path_style']);
  for (const k of u.searchParams.keys()) if (!known.has(k)) throw new Error(`unknown parameter "${k}" (known: ${[...known].join(', ')})`);
  const endpoint = u.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint)) throw new Error('endpoint must be http(s)://host[:port]');
  // the SDK would drop them without a word and sign with the bucket's credentials
  if (endpoint !== undefined && endpoint.includes('@')) throw new Error('endpoint must not carry credentials: set STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY');
  const style = u.searchParams.get('force_path_style');
  if (style !== null && style !== 'true' && style !== 'false') throw new Error('force_path_style must be true or false');
  return {
    bucket,
    prefix: decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: endpoint?.replace(/\/+$/, ''),
    region: u.searchParams.get('region') ?? 'us-east-1',
    // a custom endpoint (MinIO, s3rver, Ceph) usually has no per-bucket host names
    forcePathStyle: style === null ? endpoint !== undefined : style === 'true',
  };
}
