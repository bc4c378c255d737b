// Shared by both transports: checks a publish's arguments and serialises its body once.
export function encodeMessage(body: unknown, attempt: number): string {
  if (!Number.isSafeInteger(attempt) || attempt < 0) throw new Error(`attempt must be a non-negative integer, got ${attempt}`);
  const json = JSON.stringify(body) as string | undefined;
  if (json === undefined) throw new Error('message body is not JSON-serialisable');
  return json;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
