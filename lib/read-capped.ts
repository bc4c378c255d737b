// A fetch answer's body read into memory up to a limit: what the gateway reads of a server it
// does not control (a provider's API answer, a provider's published keys) without letting an
// endless or oversized body cost more than the limit.

/**
 * A fetch answer's body as text, or undefined when it is larger than `limit` bytes (declared or
 * counted as it arrives): reading then stops and the connection is closed, so a server that
 * sends an endless body costs no more than `limit` bytes of memory.
 */
export async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  const body = response.body;
  if (!body) return '';
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  // as Response.text() decodes: UTF-8, a byte order mark dropped
  return new TextDecoder().decode(Buffer.concat(chunks));
}
