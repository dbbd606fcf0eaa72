// `npm run bench -- --only <rows>`: one section of BENCHMARKS.md measured alone and spliced into FILE — the section
// under its heading replaced (or put before "## Targets"), and its rows of the targets table replaced.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The targets table's "met" cell: `null` is a figure kept in the table whose target was retired. */
export const metCell = (ok) => (ok === null ? 'a figure (its target retired)' : ok ? 'yes' : '**no**');
/** The same for the run's log. */
export const metWord = (ok) => (ok === null ? 'figure' : ok ? 'met   ' : 'MISSED');

/**
 * Puts `section` (its text, opening with `heading`) into `outFile`, and `targets` ([target, measured, met]) into the
 * targets table in place of the rows that start with `| ${targetPrefix}`.
 */
export function spliceSection(outFile, heading, section, targetPrefix, targets) {
  let text = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n\n## Targets\n\n| target | measured | met |\n|---|---|---|\n';
  const start = text.indexOf(heading);
  if (start >= 0) {
    const end = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start) + section + (end >= 0 ? text.slice(end + 1) : '');
  } else {
    const at = text.indexOf('## Targets');
    text = at >= 0 ? text.slice(0, at) + section + '\n' + text.slice(at) : text + '\n' + section;
  }
  const kept = text.split('\n').filter((l) => !l.startsWith(`| ${targetPrefix}`));
  const header = kept.findIndex((l, i) => l === '|---|---|---|' && kept[i - 1] === '| target | measured | met |');
  let last = header;
  while (kept[last + 1]?.startsWith('| ')) last++;
  kept.splice(last + 1, 0, ...targets.map(([t, m, ok]) => `| ${t} | ${m} | ${metCell(ok)} |`));
  writeFileSync(outFile, kept.join('\n'));
}
