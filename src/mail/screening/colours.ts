/** CSS and HTML colours as RGB, for telling text the colour of its background. */

export interface Rgb {
  r: number;
  g: number;
  b: number;
  /** 0 transparent to 1 opaque. */
  a: number;
}

const NAMED: Record<string, string> = {
  white: 'ffffff',
  black: '000000',
  red: 'ff0000',
  green: '008000',
  blue: '0000ff',
  yellow: 'ffff00',
  gray: '808080',
  grey: '808080',
  silver: 'c0c0c0',
  navy: '000080',
  maroon: '800000',
  orange: 'ffa500',
  purple: '800080',
  teal: '008080',
  whitesmoke: 'f5f5f5',
  snow: 'fffafa',
  ivory: 'fffff0',
  ghostwhite: 'f8f8ff',
  floralwhite: 'fffaf0',
  lightgray: 'd3d3d3',
  lightgrey: 'd3d3d3',
  gainsboro: 'dcdcdc',
  darkgray: 'a9a9a9',
  dimgray: '696969',
  aliceblue: 'f0f8ff',
  azure: 'f0ffff',
  beige: 'f5f5dc',
};

function fromHex(hex: string): Rgb | null {
  const h = hex.length === 3 || hex.length === 4 ? [...hex].map((c) => c + c).join('') : hex;
  if (!/^[0-9a-f]{6}([0-9a-f]{2})?$/.test(h)) return null;
  const a = h.length === 8 ? parseInt(h.slice(6, 8), 16) / 255 : 1;
  return {
    r: parseInt(h.slice(0, 2), 16),
    g: parseInt(h.slice(2, 4), 16),
    b: parseInt(h.slice(4, 6), 16),
    a,
  };
}

function channel(text: string): number {
  const n = parseFloat(text);
  return text.trim().endsWith('%') ? (n * 255) / 100 : n;
}

/** A colour value (`#fff`, `#ffffff`, `rgb()`, `rgba()`, a common name, `transparent`); null when unknown. */
export function parseColour(value: string): Rgb | null {
  const v = value.trim().toLowerCase();
  if (v === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  if (v.startsWith('#')) return fromHex(v.slice(1));
  const fn = /^rgba?\(([^)]*)\)$/.exec(v);
  if (fn) {
    const parts = fn[1]!.split(/[\s,/]+/).filter(Boolean);
    if (parts.length < 3) return null;
    const alpha = parts[3] === undefined ? 1 : channel(parts[3]) / (parts[3].endsWith('%') ? 255 : 1);
    return { r: channel(parts[0]!), g: channel(parts[1]!), b: channel(parts[2]!), a: alpha };
  }
  if (Object.hasOwn(NAMED, v)) return fromHex(NAMED[v]!);
  // HTML attributes (bgcolor, font color) also take hex without the #.
  return /^[0-9a-f]{6}$/.test(v) ? fromHex(v) : null;
}

/** The colour named in a `background` shorthand; null when it has an image or no colour this reads. */
export function backgroundColour(value: string): Rgb | null | 'image' {
  if (/url\(|gradient\(/.test(value)) return 'image';
  for (const token of value.split(/\s+(?![^(]*\))/)) {
    const colour = parseColour(token);
    if (colour) return colour;
  }
  return null;
}

/** Close enough that a reader cannot tell the text from the background. */
export function indistinguishable(text: Rgb, background: Rgb): boolean {
  if (text.a < 0.1) return true;
  return (
    Math.abs(text.r - background.r) + Math.abs(text.g - background.g) + Math.abs(text.b - background.b) <= 30
  );
}
