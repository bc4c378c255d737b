// The web dashboard (docs/api/dashboard.md): static files from dashboard/ and vendored
// modules from node_modules (htm's Preact bundle; uPlot, its charts), served at /dashboard with `GET /` redirecting
// there, and at /s/<slug> as a whitelabel studio's storefront (the page names the studio in its
// calls; on a studio's own domain /dashboard is the storefront, by the Host). No build step and nothing loaded from the internet: the page's Content-Security-Policy
// lets scripts, styles and API calls come from its own origin only. Outputs (images, video,
// audio) may live on PUBLIC_URL or an S3-compatible store's origin, so media sources allow
// those (`https:` covers a store's presigned URLs).
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Plugin, RouteOptions } from '@hapi/hapi';
import { missingIfImpossible } from './files.ts';

export const DASHBOARD_DIR = path.join(import.meta.dirname, '..', 'dashboard');
// htm's exports map hides package.json; its main entry is dist/htm.js
const htmDir = path.dirname(path.dirname(createRequire(import.meta.url).resolve('htm')));
const VENDOR = path.join(htmDir, 'preact', 'standalone.module.js');
// uPlot (the usage charts): its ES module and stylesheet, no dependencies of its own
const uplotDir = path.dirname(createRequire(import.meta.url).resolve('uplot'));
const UPLOT = path.join(uplotDir, 'uPlot.esm.js');
const UPLOT_CSS = path.join(uplotDir, 'uPlot.min.css');

export function dashboardCsp(publicUrl: string): string {
  const self = new URL(publicUrl).origin;
  const media = `'self' ${self} https: blob: data:`;
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src ${media}; media-src ${media}; connect-src 'self' ${self}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

export const dashboardPlugin: Plugin<{ publicUrl: string }> = {
  name: 'mediagate-dashboard',
  // inert comes with the files plugin
  dependencies: ['mediagate-files'],
  register(server, { publicUrl }) {
    const csp = dashboardCsp(publicUrl);
    const options: Pick<RouteOptions, 'auth' | 'security' | 'cache' | 'ext'> = {
      auth: false,
      // the files change with the gateway's version: a browser revalidates them
      cache: { privacy: 'private', expiresIn: 60_000 },
      security: { noSniff: true, hsts: false, xframe: 'deny', xss: 'disabled', noOpen: true, referrer: 'same-origin' },
      ext: {
        onPreResponse: {
          method(request, h) {
            const response = request.response;
            if (!('isBoom' in response && response.isBoom) && 'header' in response) response.header('content-security-policy', csp);
            return h.continue;
          },
        },
      },
    };
    server.route({ method: 'GET', path: '/', options: { auth: false, handler: (_request, h) => h.redirect('/dashboard').code(302) } });
    server.route({ method: 'GET', path: '/dashboard', options: { ...options, handler: { file: { path: path.join(DASHBOARD_DIR, 'index.html'), confine: false } } } });
    // a studio's storefront under the gateway's address; the page itself says nothing of the
    // studio until its first call (an unknown slug is then the studio route's 404, in words)
    for (const p of ['/s/{slug}', '/s/{slug}/{path*}']) {
      server.route({ method: 'GET', path: p, options: { ...options, handler: { file: { path: path.join(DASHBOARD_DIR, 'index.html'), confine: false } } } });
    }
    server.route({ method: 'GET', path: '/dashboard/vendor/preact-htm.js', options: { ...options, handler: { file: { path: VENDOR, confine: false } } } });
    server.route({ method: 'GET', path: '/dashboard/vendor/uplot.js', options: { ...options, handler: { file: { path: UPLOT, confine: false } } } });
    server.route({ method: 'GET', path: '/dashboard/vendor/uplot.css', options: { ...options, handler: { file: { path: UPLOT_CSS, confine: false } } } });
    server.route({
      method: 'GET',
      path: '/dashboard/{path*}',
      options: { ...options, ext: { ...options.ext, onPreHandler: missingIfImpossible }, handler: { directory: { path: DASHBOARD_DIR, listing: false, index: false, redirectToSlash: false } } },
    });
  },
};
