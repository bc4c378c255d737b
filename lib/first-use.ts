// A value made by the first call that needs it, not at start-up: an SDK imported on first use
// (stripe, nodemailer, oidc-provider cost 100-300 ms to import, and most processes never need
// them), and what is built from it.

/**
 * A getter for what `make` makes: the first call makes it, concurrent calls share that making,
 * later calls get the same value. A failure is not kept: the next call tries again.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => made ??= make().catch((err: unknown) => {
    made = undefined;
    throw err;
  });
}
