// BENCHMARKS.md's region writer (scripts/bench-regions.mjs): a run replaces the regions it measured, keeps every
// other line, adds a region the file lacks in its place, and refuses a malformed file instead of rewriting it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEADER, REGION_ORDER, RegionError, parseRegions, regionText, replaceRegions, stampLine, writeRegions } from '../../../scripts/bench-regions.mjs';

const file = (...parts: string[]) => parts.join('\n') + '\n';
const region = (name: string, ...body: string[]) => [`<!-- bench:${name} -->`, ...body, `<!-- /bench:${name} -->`].join('\n');

const TWO = file(
  '# Benchmarks',
  '',
  'Header prose.',
  '',
  region('service', '## Service', '', 'old service'),
  '',
  region('llama', '## llama', '', 'old llama'),
  '',
  'Trailing note.',
);

describe('replaceRegions', () => {
  it('replaces the one region it is given and keeps every other line as it was', () => {
    const out = replaceRegions(TWO, { llama: '## llama\n\nnew llama\n' });
    expect(out).toBe(
      file(
        '# Benchmarks',
        '',
        'Header prose.',
        '',
        region('service', '## Service', '', 'old service'),
        '',
        region('llama', '## llama', '', 'new llama'),
        '',
        'Trailing note.',
      ),
    );
  });

  it('replaces several regions at once, a longer text shifting nothing else', () => {
    const out = replaceRegions(TWO, { service: 'a\nb\nc\nd', llama: 'e' });
    expect(out).toBe(file('# Benchmarks', '', 'Header prose.', '', region('service', 'a', 'b', 'c', 'd'), '', region('llama', 'e'), '', 'Trailing note.'));
  });

  it('is idempotent: the same text written twice gives the same file', () => {
    const once = replaceRegions(TWO, { service: '## Service\n\nx\n' });
    expect(replaceRegions(once, { service: '## Service\n\nx\n' })).toBe(once);
  });

  it('adds a missing region after the nearest earlier one in the order', () => {
    const out = replaceRegions(TWO, { kernels: 'k' }, ['service', 'llama', 'kernels', 'hybrid']);
    expect(parseRegions(out).regions.get('kernels')).toBeDefined();
    expect(out).toBe(
      file(
        '# Benchmarks',
        '',
        'Header prose.',
        '',
        region('service', '## Service', '', 'old service'),
        '',
        region('llama', '## llama', '', 'old llama'),
        '',
        region('kernels', 'k'),
        '',
        'Trailing note.',
      ),
    );
  });

  it('adds a missing region before the nearest later one when none comes before it', () => {
    const onlyLlama = file('# Benchmarks', '', region('llama', 'l'));
    expect(replaceRegions(onlyLlama, { service: 's' }, ['service', 'llama'])).toBe(file('# Benchmarks', '', region('service', 's'), '', region('llama', 'l')));
  });

  it('adds a region at the end when the file has none of its neighbours, or the order does not name it', () => {
    expect(replaceRegions(file('# Benchmarks', '', 'Prose.', '', ''), { weight: 'w' })).toBe(file('# Benchmarks', '', 'Prose.', '', region('weight', 'w')));
    expect(replaceRegions(TWO, { extra: 'x' }, ['service', 'llama'])).toBe(TWO.trimEnd() + '\n\n' + region('extra', 'x') + '\n');
  });

  it('starts an empty file from the header', () => {
    const out = replaceRegions('', { kernels: '## Kernels\n\nrows' });
    expect(out.startsWith(HEADER)).toBe(true);
    expect(out.endsWith(region('kernels', '## Kernels', '', 'rows') + '\n')).toBe(true);
  });

  it('refuses a malformed file, saying where', () => {
    const cases: [string, RegExp][] = [
      [file('# B', region('service', 'x').replace('<!-- /bench:service -->', '')), /region "service" opened at line 2 never closes/],
      [
        file('# B', '<!-- bench:service -->', '<!-- bench:llama -->', '<!-- /bench:llama -->', '<!-- /bench:service -->'),
        /line 3: region "llama" opens inside region "service"/,
      ],
      [file('# B', '<!-- /bench:llama -->'), /line 2: region "llama" closes, but no region is open/],
      [file('# B', '<!-- bench:llama -->', '<!-- /bench:kernels -->'), /line 3: region "kernels" closes, but the open region is "llama"/],
      [file('# B', region('llama', 'a'), region('llama', 'b')), /line 5: region "llama" appears a second time \(first at line 2\)/],
      [file('# B', '<!-- bench: llama -->', '<!-- /bench:llama -->'), /line 2: .* looks like a region marker but is not one/],
      [file('# B', 'prose <!-- bench:llama --> inline'), /line 2: .* looks like a region marker/],
    ];
    for (const [text, message] of cases) {
      expect(() => replaceRegions(text, { llama: 'new' })).toThrow(RegionError);
      expect(() => replaceRegions(text, { llama: 'new' })).toThrow(message);
    }
  });

  it('refuses a region text that holds a marker, and a bad region name', () => {
    expect(() => replaceRegions(TWO, { llama: 'a\n<!-- /bench:llama -->\nb' })).toThrow(/the new text of region "llama" holds a region marker \(its line 2\)/);
    expect(() => replaceRegions(TWO, { 'Llama cpp': 'a' })).toThrow(/"Llama cpp" is not a region name/);
  });
});

describe('writeRegions', () => {
  it('writes a region into a file, creates a missing file, and leaves a malformed one untouched', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-regions-'));
    try {
      const path = join(dir, 'BENCHMARKS.md');
      writeRegions(path, { hybrid: '## Hybrid\n\nrows' });
      expect(readFileSync(path, 'utf8')).toBe(HEADER + '\n' + region('hybrid', '## Hybrid', '', 'rows') + '\n');
      writeRegions(path, { hybrid: '## Hybrid\n\nnewer' });
      expect(readFileSync(path, 'utf8')).toBe(HEADER + '\n' + region('hybrid', '## Hybrid', '', 'newer') + '\n');

      const broken = file('# B', '<!-- bench:hybrid -->', 'rows');
      writeFileSync(path, broken);
      expect(() => writeRegions(path, { hybrid: 'x' })).toThrow(`${path}: region "hybrid" opened at line 2 never closes; not written`);
      expect(readFileSync(path, 'utf8')).toBe(broken);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('regionText and stampLine', () => {
  it('give a region its heading, its date, command and load, its rows and its own targets', () => {
    const stamp = stampLine({
      command: 'npm run bench -- --only kernels',
      started: Date.UTC(2026, 11, 2, 6, 0, 0),
      ended: Date.UTC(2026, 11, 2, 6, 0, 12),
      before: 'load 1.0',
      after: 'load 1.2',
    });
    expect(stamp).toMatch(
      /^Measured by `npm run bench -- --only kernels` at 2026-12-02 06:00 UTC in 12 s, on .+ cores, .+\. Load before `load 1.0`, after `load 1.2`\.$/,
    );
    const text = regionText(
      'Kernels',
      stamp,
      ['| a |', '|---|', '| 1 |'],
      [
        ['a target', '1×', true],
        ['a retired one', '2', null],
      ],
    );
    expect(text.split('\n')).toEqual([
      '## Kernels',
      '',
      stamp,
      '',
      '| a |',
      '|---|',
      '| 1 |',
      '',
      '### Targets',
      '',
      '| target | measured | met |',
      '|---|---|---|',
      '| a target | 1× | yes |',
      '| a retired one | 2 | a figure (its target retired) |',
      '',
    ]);
    expect(regionText('Kernels', stamp, ['rows']).includes('### Targets')).toBe(false);
  });
});

describe("the repository's BENCHMARKS.md", () => {
  it('is the header and one region per section, in order, each opening with its heading and its stamp', () => {
    const text = readFileSync(new URL('../../../BENCHMARKS.md', import.meta.url), 'utf8');
    expect(text.startsWith(HEADER)).toBe(true);
    const { lines, regions } = parseRegions(text);
    expect([...regions.keys()]).toEqual(REGION_ORDER);
    for (const { open } of regions.values()) {
      expect(lines[open + 1]).toMatch(/^## /);
      expect(lines[open + 3]).toMatch(/^Measured by `npm run bench/);
    }
    expect(replaceRegions(text, {})).toBe(text);
  });
});
