/**
 * Before/after: the performance issue's table (`bench/table.ts`) run alternately against two builds,
 * before, after, before, after, ..., and the median of each figure side by side.
 *
 *   node dist/bench/compare.js --before <checkout> --after <checkout> [--runs 4]
 *
 * A checkout is a directory holding a build (`dist/src/index.js`, from `npm run build`), or a `dist/`
 * itself. Both are measured by this checkout's table script and baselines (bare Hono servers,
 * autocannon), so that only the build under test differs. Alternating spreads the machine's load over
 * both sides alike; each run is a fresh process tree. FAUXLAB_BENCH_SECONDS sets the load phases
 * (default 2 s). Prints each run's table as it ends, then the medians, then one JSON line.
 *
 * Bounded: one table run at a time, each stopped (its process group killed) after 15 minutes or when
 * this script is interrupted; the table's own children end with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, row } from './report.js';
import { meets, targetText, type TableRow } from './table.js';

const TABLE = fileURLToPath(new URL('./table.js', import.meta.url));
const RUN_LIMIT_MS = 15 * 60 * 1000;

interface Args {
  before: string;
  after: string;
  runs: number;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const before = get('before');
  const after = get('after');
  const runs = Number(get('runs') ?? 4);
  if (!before || !after || !Number.isInteger(runs) || runs < 1 || runs > 20) {
    console.error('usage: node dist/bench/compare.js --before <checkout> --after <checkout> [--runs 1..20]');
    process.exit(64);
  }
  for (const dir of [before, after]) {
    const abs = resolve(dir);
    if (!existsSync(join(abs, 'dist', 'src', 'index.js')) && !existsSync(join(abs, 'src', 'index.js'))) {
      console.error(`compare: no build in ${dir} (expected dist/src/index.js; run npm run build there)`);
      process.exit(66);
    }
  }
  return { before: resolve(before), after: resolve(after), runs };
}

interface TableRun {
  side: 'before' | 'after';
  run: number;
  loadavg: [number, number];
  seconds: number;
  rows: TableRow[];
}

let current: ChildProcess | undefined;

/** Kills the running table's whole process group (it runs detached, as its leader). */
function killCurrent(): void {
  if (current?.pid !== undefined && current.exitCode === null) {
    try {
      process.kill(-current.pid, 'SIGKILL');
    } catch {
      current.kill('SIGKILL');
    }
  }
}

for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    killCurrent();
    process.exit(130);
  });
process.on('exit', killCurrent);

/** One table run against `dir`: its report lines shown as they come, its JSON line returned. */
function runTable(dir: string, label: string): Promise<Omit<TableRun, 'side' | 'run'>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [TABLE, '--target', dir], {
      env: { ...process.env, FAUXLAB_BENCH_TARGET: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    current = child;
    const timer = setTimeout(() => {
      console.error(`compare: ${label} ran over ${RUN_LIMIT_MS / 60000} minutes, stopped`);
      killCurrent();
    }, RUN_LIMIT_MS);
    let buffered = '';
    let result: Omit<TableRun, 'side' | 'run'> | undefined;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('{"bench":"fauxlab-table"')) {
          const j = JSON.parse(line) as { rows: TableRow[]; loadavg: [number, number]; seconds: number };
          result = { rows: j.rows, loadavg: j.loadavg, seconds: j.seconds };
        } else if (line.trim()) console.log(`[${label}] ${line}`);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      current = undefined;
      if (result) resolvePromise(result);
      else reject(new Error(`${label}: the table run ended (code ${code}) without its figures`));
    });
  });
}

/** The median; of an even count, the mean of the middle two. */
function median(xs: number[]): number | undefined {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = v.length >> 1;
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

interface Summary {
  value?: number;
  p99?: number;
  baseline?: number;
  ratio?: number;
  ok?: boolean;
  failedRuns: number;
}

function summarise(rows: (TableRow | undefined)[]): Summary {
  const present = rows.filter((r): r is TableRow => r !== undefined);
  const pick = (f: (r: TableRow) => number | undefined) =>
    median(present.map(f).filter((x): x is number => x !== undefined));
  const s: Summary = {
    value: pick((r) => r.value),
    p99: pick((r) => r.p99),
    baseline: pick((r) => r.baseline),
    ratio: pick((r) => r.ratio),
    failedRuns: present.filter((r) => r.failed).length + (rows.length - present.length),
  };
  const check = present.find((r) => r.check)?.check;
  if (check && s.value !== undefined) s.ok = meets(check, { value: s.value, ratio: s.ratio, p99: s.p99 });
  return s;
}

const num = (v: number | undefined, unit: string) =>
  v === undefined ? '-' : unit === 'x' ? fmt(v, 2) : unit === 'µs' ? fmt(v, 1) : fmt(v);

function cell(s: Summary, unit: string): string {
  const v = num(s.value, unit);
  const withRatio = s.ratio !== undefined ? `${v} (${fmt(s.ratio, 2)})` : v;
  return unit === 'req/s' && s.p99 !== undefined ? `${withRatio} p99 ${fmt(s.p99)}` : withRatio;
}

const verdict = (s: Summary) => (s.failedRuns ? 'ERR' : s.ok === undefined ? '' : s.ok ? 'ok' : 'OVER');

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(
    `compare: ${args.runs} runs each, alternating; before ${args.before}, after ${args.after}; ` +
      `load average ${loadavg()
        .map((x) => fmt(x, 2))
        .join(' ')}`,
  );
  const runs: TableRun[] = [];
  for (let i = 1; i <= args.runs; i++)
    for (const side of ['before', 'after'] as const) {
      const label = `${side} ${i}/${args.runs}`;
      const r = await runTable(side === 'before' ? args.before : args.after, label);
      runs.push({ side, run: i, ...r });
    }

  const figures: string[] = [];
  for (const r of runs) for (const x of r.rows) if (!figures.includes(x.figure)) figures.push(x.figure);
  const rowsOf = (side: 'before' | 'after', figure: string) =>
    runs.filter((r) => r.side === side).map((r) => r.rows.find((x) => x.figure === figure));

  const w = [74, 30, 30, 12, 4, 4];
  const out: string[] = [
    '',
    `medians of ${args.runs} runs each (value (ratio to its baseline) [p99 ms]; OVER/ok on the medians; ERR: a run had non-2xx answers)`,
    row(['figure', 'before', 'after', 'target', 'bef', 'aft'], w),
  ];
  const json: Record<string, { before: Summary; after: Summary; target?: string }> = {};
  for (const figure of figures) {
    const sample = runs.flatMap((r) => r.rows).find((x) => x.figure === figure)!;
    const before = summarise(rowsOf('before', figure));
    const after = summarise(rowsOf('after', figure));
    const target = sample.check ? targetText(sample.check) : undefined;
    json[figure] = { before, after, ...(target && { target }) };
    out.push(
      row(
        [
          figure,
          cell(before, sample.unit),
          cell(after, sample.unit),
          target ?? '-',
          verdict(before),
          verdict(after),
        ],
        w,
      ),
    );
  }
  const loads = runs.map((r) => `${r.side} ${r.run}: ${fmt(r.loadavg[0], 1)}-${fmt(r.loadavg[1], 1)}`);
  out.push(`load average at start-end of each run: ${loads.join('; ')}`);
  console.log(out.join('\n'));
  console.log(
    JSON.stringify({
      bench: 'fauxlab-compare',
      node: process.version,
      before: args.before,
      after: args.after,
      runs: args.runs,
      loadavg: runs.map((r) => ({ side: r.side, run: r.run, loadavg: r.loadavg, seconds: r.seconds })),
      figures: json,
    }),
  );
}

await main();
