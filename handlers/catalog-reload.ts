// POST /auth/admin_reload_catalog (docs/operating/model-files.md, "Reloading the catalog"): the
// catalog reload of lib/catalog-reload.ts, told to every process; a catalog that does not load
// changes nothing and the 422 says why.
import type { Handler } from './types.ts';
import { ValidationFailedError } from '../lib/errors.ts';
import { CatalogReloadError } from '../lib/catalog-reload.ts';

export const adminReloadCatalog: Handler<'adminReloadCatalog'> = async ({ app }) => {
  try {
    const { models, added, removed, changed, unchanged } = await app.catalog.reload({ broadcast: true });
    return { models, added, removed, changed, unchanged };
  } catch (err) {
    if (err instanceof CatalogReloadError) throw new ValidationFailedError([{ loc: ['catalog'], msg: err.message, type: 'catalog_invalid' }]);
    throw err;
  }
};
