// The kinds of media a model produces (x-model.output in the spec). Shared by the adapters
// (workers/adapters/types.ts re-exports it), the catalog and storage's sandbox samples.
export type MediaKind = 'image' | 'video' | 'audio' | 'model3d' | 'text';
