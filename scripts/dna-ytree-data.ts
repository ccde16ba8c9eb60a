/**
 * Writes data/dna/ytree/ages.json (issue 35): the formation and common-ancestor ages YFull's tree
 * gives for the clades of our Y backbone (data/dna/ytree/backbone.json names each clade's YFull
 * node), and nothing else of the tree:
 *   unzip ytree/tree_14.02.0.zip   (from https://github.com/YFullTeam/YTree, CC BY 4.0)
 *   npx tsx scripts/dna-ytree-data.ts --tree tree_14.02.0.json --version 14.02.0 [--commit sha]
 * YFull writes 0 or "-" where it has no estimate; those become null. Ages are years before present
 * as YFull counts them, with YFull's 95% interval.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** A node of YFull's tree JSON, as far as this script reads it. */
interface YFullNode {
  id: string;
  formed: number | string;
  formedlowage: number | string;
  formedhighage: number | string;
  tmrca: number | string;
  tmrcalowage: number | string;
  tmrcahighage: number | string;
  children?: YFullNode[];
}

/** An age with its interval, or null when YFull gives none. */
interface Age {
  years: number;
  low: number;
  high: number;
}

const { values } = parseArgs({
  options: {
    tree: { type: 'string' },
    version: { type: 'string' },
    commit: { type: 'string' },
    backbone: { type: 'string', default: path.join('data', 'dna', 'ytree', 'backbone.json') },
    out: { type: 'string', default: path.join('data', 'dna', 'ytree', 'ages.json') },
  },
});
if (!values.tree || !values.version) {
  console.error(
    'usage: tsx scripts/dna-ytree-data.ts --tree tree_X.json --version X [--commit sha]',
  );
  process.exit(2);
}

/** Every node by its id. */
function index(root: YFullNode): Map<string, YFullNode> {
  const byId = new Map<string, YFullNode>();
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.id) byId.set(n.id, n);
    stack.push(...(n.children ?? []));
  }
  return byId;
}

/** YFull's estimate as an age, or null for 0 and "-". */
function age(years: number | string, low: number | string, high: number | string): Age | null {
  const [y, l, h] = [years, low, high].map(Number);
  return Number.isFinite(y) && y > 0 ? { years: y, low: l, high: h } : null;
}

const tree = index(JSON.parse(readFileSync(values.tree, 'utf8')) as YFullNode);
const backbone = JSON.parse(readFileSync(values.backbone, 'utf8')) as {
  clades: { name: string; yfull: string | null }[];
};
const ages: Record<string, { yfull: string; formed: Age | null; tmrca: Age | null }> = {};
for (const clade of backbone.clades) {
  if (!clade.yfull) continue;
  const n = tree.get(clade.yfull);
  if (!n)
    throw new Error(`YFull ${values.version} has no node ${clade.yfull} (clade ${clade.name})`);
  ages[clade.name] = {
    yfull: n.id,
    formed: age(n.formed, n.formedlowage, n.formedhighage),
    tmrca: age(n.tmrca, n.tmrcalowage, n.tmrcahighage),
  };
}
const out = {
  format: 1,
  source: {
    name: `YFull YTree v${values.version}`,
    repository: 'https://github.com/YFullTeam/YTree',
    commit: values.commit ?? null,
    licence: 'CC BY 4.0',
    attribution: 'YFull (https://www.yfull.com/tree/), Adamov et al. 2015 for the dating method',
    changes:
      'only the formed and TMRCA ages (with 95% intervals) of the backbone clades are kept; 0 or "-" became null',
  },
  units: 'years before present, as YFull counts them; low and high bound a 95% interval',
  ages,
};
writeFileSync(values.out, `${JSON.stringify(out, null, 2)}\n`);
console.error(`${values.out}: ${Object.keys(ages).length} clades`);
