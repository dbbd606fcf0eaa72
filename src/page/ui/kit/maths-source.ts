// Finding the maths in an answer's text (pure: markdown.ts renders around it, maths.ts typesets it).

/** Maths: `$$…$$` and `\[…\]` (display), `\(…\)` and `$…$` (inline: no space inside the dollars, no digit after). */
const MATH = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$(?![\s$])([^$\n]+?)(?<!\s)\$(?!\d)/g;
/** Code (fenced blocks and inline spans), where nothing is maths. */
const CODE = /(```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`)/;

/**
 * The text with its maths (outside code) replaced by placeholders marked cannot change, and the maths found.
 * Marked would otherwise read TeX's backslashes and underscores as markdown.
 */
export function extractMaths(text: string): { text: string; maths: { tex: string; display: boolean }[] } {
  const maths: { tex: string; display: boolean }[] = [];
  const parts = text.split(CODE).map((part, i) =>
    i % 2 === 1
      ? part
      : part.replace(MATH, (_all, dd: string | undefined, bracket: string | undefined, paren: string | undefined, dollar: string | undefined) => {
          maths.push({ tex: (dd ?? bracket ?? paren ?? dollar)!.trim(), display: dd !== undefined || bracket !== undefined });
          return `MATHPLACEHOLDER${maths.length - 1}X`;
        }),
  );
  return { text: parts.join(''), maths };
}
