// The documentation site: `npm run docs:build` writes it to docs/.vitepress/dist, `npm run
// docs:dev` serves it while you edit. The pages stay plain markdown that reads the same on GitHub:
// headings get GitHub's anchors (github-slugger), so one link works in both, and docs/README.md,
// the index, is the site's home page. Search is VitePress's local search: its index is built
// with the site and needs no service.
import path from 'node:path';
import { defineConfig } from 'vitepress';
import { slug } from 'github-slugger';
import type MarkdownIt from 'markdown-it';

const DOCS = path.resolve(import.meta.dirname, '..');
const REPO = path.resolve(DOCS, '..');
// Links from a page to the repository's own files (a source file, the benchmark log) lead to
// DOCS_SOURCE_URL (e.g. https://github.com/you/mediagate/blob/main) when it is set; without it
// the link text stays, as text, since the site does not serve those files.
const SOURCE_URL = process.env.DOCS_SOURCE_URL?.replace(/\/+$/, '');

function sourceLinks(md: MarkdownIt): void {
  const open = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  const close = md.renderer.rules.link_close ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  const outside = (href: string, page: string) => {
    if (/^[a-z]+:|^#|^\//i.test(href)) return null;
    const target = path.resolve(path.dirname(path.join(DOCS, page)), href.split('#')[0]!);
    const rel = path.relative(DOCS, target);
    return rel.startsWith('..') ? path.relative(REPO, target) : null;
  };
  md.renderer.rules.link_open = (tokens, idx, options, env: { relativePath?: string }, self) => {
    const token = tokens[idx]!;
    const href = token.attrGet('href') ?? '';
    // the index is the site's home page (rewrites above); VitePress does not rewrite links to it
    const index = /^(?:\.\.?\/)*(?:[\w-]+\/\.\.\/)*README\.md(#.*)?$/.exec(href);
    if (index && path.resolve(path.dirname(path.join(DOCS, env.relativePath ?? '')), href.split('#')[0]!) === path.join(DOCS, 'README.md')) {
      token.attrSet('href', `/${index[1] ?? ''}`);
      return open(tokens, idx, options, env, self);
    }
    const file = outside(href, env.relativePath ?? '');
    if (file !== null) {
      if (!SOURCE_URL) {
        token.meta = { ...token.meta, dropped: true };
        return '';
      }
      token.attrSet('href', `${SOURCE_URL}/${file.split(path.sep).join('/')}`);
      token.attrSet('target', '_blank');
    }
    return open(tokens, idx, options, env, self);
  };
  md.renderer.rules.link_close = (tokens, idx, options, env, self) => {
    // the matching open is the nearest unclosed link_open before it
    let depth = 0;
    for (let i = idx - 1; i >= 0; i--) {
      const t = tokens[i]!;
      if (t.type === 'link_close') depth++;
      if (t.type === 'link_open') {
        if (depth === 0) return (t.meta as { dropped?: boolean } | null)?.dropped ? '' : close(tokens, idx, options, env, self);
        depth--;
      }
    }
    return close(tokens, idx, options, env, self);
  };
}

const section = (text: string, dir: string, items: Array<[string, string]>) => ({
  text,
  items: items.map(([label, page]) => ({ text: label, link: `/${dir}/${page}` })),
});

export default defineConfig({
  title: 'mediagate',
  description: 'A self-hostable gateway for generative-media APIs',
  rewrites: { 'README.md': 'index.md' },
  srcExclude: ['**/node_modules/**'],
  cleanUrls: false,
  lastUpdated: false,
  markdown: {
    anchor: { slugify: (s: string) => slug(s) },
    config: (md) => sourceLinks(md),
  },
  themeConfig: {
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Using the API', link: '/api/quickstart' },
      { text: 'Partners', link: '/partners/embeds' },
      { text: 'Operating', link: '/operating/install' },
      { text: 'Contributing', link: '/contributing/architecture' },
    ],
    sidebar: [
      section('Using the API', 'api', [
        ['Quick start', 'quickstart'], ['The command-line client', 'cli'], ['Credentials', 'credentials'],
        ['Predictions', 'predictions'], ['Webhooks', 'webhooks'], ['Models and prices', 'models'],
        ['Uploads and media', 'uploads'], ['Teams', 'teams'], ['Run history', 'history'],
        ['Rate limits', 'rate-limits'], ['Errors', 'errors'],
      ]),
      section('Client libraries', 'clients', [['TypeScript', 'typescript'], ['Python', 'python'], ['MCP server', 'mcp']]),
      section('Partners', 'partners', [['Embeds', 'embeds'], ['Agent embeds', 'agent-embeds'], ['Whitelabel studios', 'studios']]),
      section('Operating a gateway', 'operating', [
        ['Install', 'install'], ['Configuration', 'configuration'], ['Running in production', 'production'],
        ['Containers', 'containers'], ['Upgrading', 'upgrading'], ['Backups', 'backups'],
        ['Logs, metrics, probes', 'observability'], ['Retention', 'retention'], ['Providers and models', 'providers'], ['Model files', 'model-files'],
        ['Administration', 'administration'], ['Billing', 'billing'], ['Security model', 'security'],
      ]),
      section('Contributing', 'contributing', [
        ['Architecture', 'architecture'], ['Conventions', 'conventions'], ['Tests', 'tests'], ['The store', 'store'], ['The benchmark', 'benchmark'],
      ]),
    ],
  },
});
