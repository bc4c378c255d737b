// A studio's storefront wears its colours: the accent (buttons, links, the current page) and the
// primary colour (the top bar). Text on them is black or white, whichever reads better (WCAG 2.x
// contrast), and links fall back to the default ink when the accent is too light to read on white.

function rgb(hex) {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(hex || '').trim());
  if (!m) return null;
  const h = m[1].length === 3 ? m[1].replace(/./g, (c) => c + c) : m[1];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
}

/** WCAG relative luminance of an sRGB colour. */
function luminance([r, g, b]) {
  const lin = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const WHITE = [255, 255, 255];
const INK = [29, 36, 48];

/** Black or white text on `c`, whichever contrasts more. */
function textOn(c) {
  return contrast(c, WHITE) >= contrast(c, [0, 0, 0]) ? '#ffffff' : '#000000';
}

const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * The colours a studio's pages use, from its branding (null where it sets none): the accent and
 * the text on it, the pale background of the current page, links, the top bar and its text.
 */
export function paletteOf(branding) {
  const accent = rgb(branding.accent_color) || rgb(branding.primary_color);
  const brand = rgb(branding.primary_color) || accent;
  const out = {};
  if (accent) {
    // the current page's pale background: the accent mixed nine parts to one with white
    const tint = accent.map((v) => Math.round(v * 0.1 + 255 * 0.9));
    Object.assign(out, {
      accent: hex(accent), onAccent: textOn(accent), currentBg: hex(tint),
      // links sit on white and on that tint: the accent only where it reads on both
      link: contrast(accent, tint) >= 4.5 ? hex(accent) : hex(INK), accentReadable: contrast(accent, tint) >= 4.5,
    });
  }
  if (brand) Object.assign(out, { brand: hex(brand), onBrand: textOn(brand) });
  return out;
}

/** Sets the studio's colours on the page; a colour that is not #rgb/#rrggbb is ignored. Answers whether the top bar is branded. */
export function applyBranding(studio) {
  if (!studio) return false;
  const p = paletteOf(studio);
  const style = document.documentElement.style;
  const set = (name, v) => { if (v) style.setProperty(name, v); };
  set('--accent', p.accent); set('--on-accent', p.onAccent); set('--current-bg', p.currentBg); set('--link', p.link);
  set('--brand', p.brand); set('--on-brand', p.onBrand);
  return Boolean(p.brand);
}
