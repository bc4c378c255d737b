// Moved to lib/addresses.ts (transport-free; handlers import it from there). Kept so the edge's
// modules and the handlers not converted yet keep their import path.
export * from '../lib/addresses.ts';
