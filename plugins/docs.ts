// The served spec (GET /openapi.json: spec/public.ts's document, without operators' x-model
// wiring, naming the gateway version) and a readable API reference (GET /docs), rendered by
// swagger-ui from the npm package's own files: nothing is loaded from the internet (no
// validator badge; a same-origin Content-Security-Policy on the page).
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Plugin } from '@hapi/hapi';
import type { SpecDocument } from '../spec/load.ts';
import { publicDocument } from '../spec/public.ts';
import { PUBLIC_CORS } from './cors.ts';

const uiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>mediagate API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * The page may load only from its own origin and contact only itself and the API it documents
 * (PUBLIC_URL, for "Try it out"), so an external reference fails closed in the browser.
 * swagger-ui sets inline style attributes; its CSS embeds data: images.
 */
export function docsCsp(publicUrl: string): string {
  return `default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self' ${new URL(publicUrl).origin}; object-src 'none'; base-uri 'none'; frame-ancestors 'self'`;
}

// Kept out of the page so a strict Content-Security-Policy (no inline scripts) still works.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  filter: true,
  docExpansion: 'none',
  presets: [SwaggerUIBundle.presets.apis],
  // the product layout: the reference alone, without the explorer bar (a URL box for any spec)
  layout: 'BaseLayout',
  // no validity badge: swagger-ui would send the spec's URL to validator.swagger.io on any
  // hostname but localhost
  validatorUrl: null
});
`;

export const docsPlugin: Plugin<{ document: () => SpecDocument; publicUrl: string }> = {
  name: 'mediagate-docs',
  dependencies: ['mediagate-files'],
  register(server, { document, publicUrl }) {
    // the catalog in use (a reload replaces it): served as it is, rendered once per catalog
    let source: SpecDocument | null = null;
    let rendered = '';
    const served = () => {
      const now = document();
      if (now !== source) {
        rendered = JSON.stringify({ ...publicDocument(now), servers: [{ url: publicUrl }] });
        source = now;
      }
      return rendered;
    };
    const csp = docsCsp(publicUrl);
    server.route({
      method: 'GET',
      path: '/openapi.json',
      options: { auth: false, cors: PUBLIC_CORS, handler: (_r, h) => h.response(served()).type('application/json; charset=utf-8') },
    });
    server.route({
      method: 'GET',
      path: '/docs',
      options: { auth: false, cors: PUBLIC_CORS, handler: (_r, h) => h.response(PAGE).type('text/html; charset=utf-8').header('Content-Security-Policy', csp) },
    });
    server.route({
      method: 'GET',
      path: '/docs/init.js',
      options: { auth: false, cors: PUBLIC_CORS, handler: (_r, h) => h.response(INIT).type('text/javascript; charset=utf-8') },
    });
    server.route({
      method: 'GET',
      path: '/docs/assets/{file}',
      options: {
        auth: false,
        cors: PUBLIC_CORS,
        cache: { expiresIn: 24 * 3600 * 1000, privacy: 'public' },
        handler: (request, h) => {
          const file = request.params.file as string;
          if (!ASSETS.has(file)) return h.response({ detail: 'not found' }).code(404);
          return h.file(path.join(uiDir, file), { confine: false });
        },
      },
    });
  },
};
