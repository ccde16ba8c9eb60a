/**
 * The fuzz tests' bug list: failures grouped by problem and input class, each group by target,
 * the first few targets with an example input and answer, the rest by name only.
 */

/** What a fuzz test records of one failed request. */
export interface FuzzFailure {
  /** the operation, tool or endpoint */
  target: string;
  /** who called, or in which context ("user", "valid", ...) */
  who: string;
  /** the input class */
  cls: string;
  problem: string;
  status: number;
  input: string;
  answer: string;
}

/** Targets per group shown with an example input and answer. */
const REPORT_EXAMPLES = 8;

/** The report of `failures`; `title` names them, `unit` their targets ("operations", "endpoints"). */
export function fuzzReport(failures: readonly FuzzFailure[], title: string, unit: string): string {
  const groups = new Map<string, FuzzFailure[]>();
  for (const f of failures) {
    const key = `${f.problem} | class ${f.cls}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [
    `${failures.length} ${title} in ${groups.size} groups (problem | input class -> ${unit}):`,
  ];
  for (const [key, list] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const byTarget = new Map<string, FuzzFailure[]>();
    for (const f of list) byTarget.set(f.target, [...(byTarget.get(f.target) ?? []), f]);
    lines.push(`\n## ${key}: ${list.length} requests, ${byTarget.size} ${unit}`);
    [...byTarget].forEach(([target, fs], i) => {
      const statuses = [...new Set(fs.map((f) => f.status))].join('/');
      const who = [...new Set(fs.map((f) => f.who))].join('+');
      const head = `- ${target} (${who}) status ${statuses} x${fs.length}`;
      lines.push(
        i < REPORT_EXAMPLES
          ? `${head}\n    input:  ${fs[0].input}\n    answer: ${fs[0].answer}`
          : head,
      );
    });
  }
  return lines.join('\n');
}

/** `status:count` pairs in status order (the run summary). */
export function statusCounts(counts: Map<number, number>): string {
  return [...counts]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
}
