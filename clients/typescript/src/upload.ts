// What `upload` accepts: a Blob or File (browsers, Node 20+), or bytes (ArrayBuffer, Uint8Array,
// a Node Buffer).
import { MediagateError } from './errors.ts';

export type UploadSource = Blob | ArrayBuffer | ArrayBufferView;

export function uploadBody(file: UploadSource, filename: string | undefined): { body: Blob | ArrayBuffer | Uint8Array<ArrayBuffer>; size: number; name: string } {
  const name = filename ?? (typeof Blob !== 'undefined' && file instanceof Blob && typeof (file as File).name === 'string' ? (file as File).name : undefined);
  if (!name) throw new MediagateError('upload needs a filename (its extension selects the content type), or a File');
  if (typeof Blob !== 'undefined' && file instanceof Blob) return { body: file, size: file.size, name };
  if (file instanceof ArrayBuffer) return { body: file, size: file.byteLength, name };
  if (ArrayBuffer.isView(file)) {
    // a view of shared memory is copied: fetch sends only plain ArrayBuffer-backed bytes
    const bytes = file.buffer instanceof ArrayBuffer
      ? new Uint8Array(file.buffer, file.byteOffset, file.byteLength)
      : new Uint8Array(new Uint8Array(file.buffer, file.byteOffset, file.byteLength));
    return { body: bytes, size: bytes.byteLength, name };
  }
  throw new MediagateError('upload takes a Blob, a File, an ArrayBuffer or a Uint8Array');
}
