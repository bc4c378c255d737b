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

/** Sets the studio's colours on the page; a colour that is not #rgb/#rrggbb is ignored. */
export function applyBranding(studio) {
  if (!studio) return false;
  const style = document.documentElement.style;
  const accent = rgb(studio.accent_color) || rgb(studio.primary_color);
  const brand = rgb(studio.primary_color) || accent;
  const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  if (accent) {
    // the current page's pale background: the accent mixed nine parts to one with white
    const tint = accent.map((v) => Math.round(v * 0.1 + 255 * 0.9));
    style.setProperty('--accent', hex(accent));
    style.setProperty('--on-accent', textOn(accent));
    style.setProperty('--current-bg', hex(tint));
    // links sit on white and on that tint: the accent only where it reads on both
    style.setProperty('--link', contrast(accent, tint) >= 4.5 ? hex(accent) : hex(INK));
  }
  if (brand) {
    style.setProperty('--brand', hex(brand));
    style.setProperty('--on-brand', textOn(brand));
  }
  return Boolean(brand);
}
