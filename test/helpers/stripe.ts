// What the tests of Stripe calls read of a request the Stripe SDK sent (nock hands the body over
// parsed or as text, by the SDK's version).

/** The form body the SDK sent, as a flat map (`metadata[user_id]` → value). */
export function formOf(body: unknown): Record<string, string> {
  if (typeof body === 'string') return Object.fromEntries(new URLSearchParams(body));
  const flat: Record<string, string> = {};
  const walk = (v: unknown, prefix: string) => {
    if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, prefix ? `${prefix}[${k}]` : k);
    else flat[prefix] = String(v);
  };
  walk(body, '');
  return flat;
}
