// Serves stored outputs and the sandbox's sample files at stable URLs under /files/.
import path from 'node:path';
import type { Plugin } from '@hapi/hapi';
import inert from '@hapi/inert';
import { SANDBOX_DIR } from '../workers/storage.ts';

export const filesPlugin: Plugin<{ storageDir: string }> = {
  name: 'mediagate-files',
  dependencies: ['mediagate-errors'],
  async register(server, { storageDir }) {
    await server.register(inert);
    const cache = { expiresIn: 365 * 24 * 3600 * 1000, privacy: 'public' as const };
    server.route({
      method: 'GET',
      path: '/files/outputs/{path*}',
      options: { auth: false, cache, handler: { directory: { path: path.join(storageDir, 'outputs'), listing: false, index: false, redirectToSlash: false } } },
    });
    server.route({
      method: 'GET',
      path: '/files/sandbox/{path*}',
      options: { auth: false, cache, handler: { directory: { path: SANDBOX_DIR, listing: false, index: false, redirectToSlash: false } } },
    });
  },
};
