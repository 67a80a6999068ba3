// Repository hygiene (issue 16, item 6): no link to a document that does not exist. Every relative link in the
// Markdown files (README, CHANGELOG, docs/) must name a file of the repository and, for a Markdown target with a
// #fragment, one of its headings (as GitHub makes anchors of them); every docs/….md named in a source comment must
// exist.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const MARKDOWN = [
  ...['README.md', 'CHANGELOG.md'].map((f) => join(ROOT, f)).filter((f) => existsSync(f)),
  ...filesUnder(join(ROOT, 'docs'), (n) => n.endsWith('.md')),
];

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The link targets of a Markdown file, outside code: `[text](target)` and `<img src="target">`. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  const links = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string);
  const images = [...text.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1] as string);
  return [...links, ...images];
}

describe('docs: no dead relative links', () => {
  test('there are Markdown files to check', () => {
    assert.ok(MARKDOWN.length > 5);
  });

  for (const file of MARKDOWN) {
    test(`${relative(ROOT, file)}: every relative link resolves`, () => {
      const dead: string[] = [];
      for (const link of linksOf(file)) {
        if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // http:, https:, mailto: …
        const [path = '', fragment] = link.split('#');
        const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!target.startsWith(ROOT) || !existsSync(target)) {
          dead.push(`${link} (no such file)`);
          continue;
        }
        if (
          fragment &&
          target.endsWith('.md') &&
          statSync(target).isFile() &&
          !anchorsOf(target).has(fragment)
        ) {
          dead.push(`${link} (no heading #${fragment} in ${relative(ROOT, target)})`);
        }
      }
      assert.deepEqual(dead, [], `dead links in ${relative(ROOT, file)}`);
    });
  }

  test('every docs/….md a source file names exists', () => {
    const sources = [
      ...filesUnder(join(ROOT, 'src'), (n) => n.endsWith('.ts') || n.endsWith('.tsx')),
      ...filesUnder(join(ROOT, 'bin'), (n) => n.endsWith('.js')),
      ...filesUnder(join(ROOT, 'scripts'), (n) => /\.(m?js|sh)$/.test(n)),
    ];
    const dead: string[] = [];
    for (const file of sources) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?<![\w/.-])docs\/([\w./-]+?\.md)\b/g)) {
        if (!existsSync(join(ROOT, 'docs', m[1] as string)))
          dead.push(`${relative(ROOT, file)}: docs/${m[1]}`);
      }
    }
    assert.deepEqual(dead, []);
  });
});
