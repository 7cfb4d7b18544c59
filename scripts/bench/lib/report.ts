/**
 * The suite's report: bench/results/latest.json (every figure of the parts that ran, the cost model,
 * every budget with `{ name, value, budget, pass }`) and latest.md (a readable summary), plus dated
 * copies `bench-<UTC time>.json` / `.md`. Pure except `writeReport`.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ColdResult } from '../cold';
import type { FollowResult } from '../follow';
import type { HttpResult } from '../http';
import type { LambdaFollowResult } from '../lambda-follow';
import type { WebhooksResult } from '../webhooks';
import { summarise, type Budget, type IngestResult, type LoadResult, type Part } from './budgets';
import type { CostModel } from './cost';
import type { ProfileFacts } from '../dataset/profile';
import { coldTierLines } from './cold-tier-projection';
import { profileSummaryLines, workloadCostLines, type ProfiledWorkloadCost } from './workload-cost';
import { expiringStoredNote, familyMarkdown, type PerUnitReport } from './write-families';

export interface Report {
  date: string;
  command: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  /** Wall time of each part that ran, seconds (`profiles`: reading or building the chain profiles' datasets). */
  seconds: Partial<Record<Part, number>> & { total: number; profiles?: number };
  parts: {
    http: HttpResult | null;
    cold: ColdResult | null;
    ingest: IngestResult | null;
    /** Absent in reports written before the follow part existed. */
    follow?: FollowResult | null;
    /** The deployed ingest run as Lambda runs it (scripts/bench/lambda-follow.ts); absent in reports written before it existed. */
    lambda?: LambdaFollowResult | null;
    /** Matching blocks against webhooks (scripts/bench/webhooks.ts); absent in reports written before it existed. */
    webhooks?: WebhooksResult | null;
    load: LoadResult | null;
  };
  /** Parts that did not run or failed, with why. */
  missing: Partial<Record<Part, string>>;
  cost: (CostModel & { alternative?: { basis: string; model: CostModel } }) | null;
  /**
   * Issue 27's model: W1 and W2 under every table option, per chain profile (absent in older reports;
   * `profile`, the profile's name and shape, absent in reports written before the chain profiles).
   */
  workloadCost?: ProfiledWorkloadCost[] | null;
  /** The chain profiles' datasets (scripts/bench/dataset/profile.ts): their shape and writes by item family. */
  profiles?: ProfileResult[] | null;
  budgets: Budget[];
  summary: { budgets: number; failed: number; byFamily: ReturnType<typeof summarise> };
  pass: boolean;
}

export interface ProfileResult {
  profile: string;
  /** The profile's cached folder (relative to the repository) and whether this run built it. */
  dir?: string;
  builtThisRun?: boolean;
  facts?: ProfileFacts;
  /** Why the profile has no figures (its build failed). */
  error?: string;
}

export function buildReport(input: Omit<Report, 'summary' | 'pass'>): Report {
  const failed = input.budgets.filter((budget) => !budget.pass).length;
  return {
    ...input,
    summary: { budgets: input.budgets.length, failed, byFamily: summarise(input.budgets) },
    pass: failed === 0 && Object.keys(input.missing).length === 0,
  };
}

const fmt = (value: number | null | undefined, digits = 2): string =>
  value === null || value === undefined || Number.isNaN(value) ? '-' : String(Math.round(value * 10 ** digits) / 10 ** digits);
const usd = (value: number): string => `$${value < 0.01 ? value.toPrecision(2) : value.toFixed(2)}`;

export function markdown(report: Report): string {
  const lines: string[] = [];
  const m = report.machine;
  lines.push(`# Benchmarks, ${report.date}`, '');
  lines.push(
    `\`${report.command}\` on ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}, ${m.platform}. ` +
      `${report.pass ? 'PASS' : 'FAIL'}: ${report.summary.failed} of ${report.summary.budgets} budgets broken` +
      (Object.keys(report.missing).length > 0
        ? `; not measured: ${Object.entries(report.missing)
            .map(([part, why]) => `${part} (${why})`)
            .join(', ')}`
        : '') +
      '. Budgets the scale issues must meet may fail until they land; every figure is still written.',
    '',
    `Time: ${Object.entries(report.seconds)
      .map(([part, seconds]) => `${part} ${fmt(seconds, 0)} s`)
      .join(', ')}.`,
    '',
  );

  lines.push('## Budgets', '', '| budget | pass | worst | failing |', '|---|---|---|---|');
  for (const family of report.summary.byFamily) {
    const worst = family.worst ? `${fmt(family.worst.value)} (budget ${fmt(family.worst.budget)}): ${family.worst.name}` : '-';
    const names = family.failing.map((name) => (name.includes(': ') ? name.slice(name.indexOf(': ') + 2) : name));
    const failing = names.length > 0 ? `${names.slice(0, 4).join('; ')}${names.length > 4 ? `; … ${names.length - 4} more` : ''}` : '';
    lines.push(`| ${family.family} | ${family.total - family.failed}/${family.total} | ${worst} | ${failing} |`);
  }
  lines.push('');

  if (report.cost) {
    const c = report.cost;
    lines.push(
      "## Cost model (30 days kept, issue 13; issue 27's W1 / W2 follow)",
      '',
      `On-demand prices: $${c.prices.writeUnit} per million write units, $${c.prices.readUnit} per million read units, $${c.prices.gbMonth} per GB-month. ` +
        `Workload: ${c.workload.transactionsPerDay.toLocaleString('en-US')} transactions a day kept ${c.workload.retentionDays} days, ${c.workload.pagesPerDay.toLocaleString('en-US')} list pages a day.`,
      '',
      '| basis | writes / day | reads / day | storage / day | total / day | per transaction (writes) | per page (reads) | WCU / tx | RCU / page | stored bytes / tx |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    const row = (basis: string, model: CostModel) =>
      `| ${basis} | ${usd(model.perDayUsd.writes)} | ${usd(model.perDayUsd.reads)} | ${usd(model.perDayUsd.storage)} | **${usd(model.perDayUsd.total)}** | ${usd(model.perTransactionUsd.writes)} | ${usd(model.perPageUsd.reads)} | ${fmt(model.inputs.writeUnitsPerTransaction)} | ${fmt(model.inputs.readUnitsPerPage)} | ${fmt(model.inputs.storedBytesPerTransaction, 0)} |`;
    lines.push(row('ingest bench chain', c));
    if (c.alternative) lines.push(row(c.alternative.basis, c.alternative.model));
    lines.push('', `Sources: writes ${c.inputs.sources.writes}; storage ${c.inputs.sources.storage}; reads ${c.inputs.sources.reads}.`, '');
  }
  const workloadCost = report.workloadCost ?? [];
  if (workloadCost.some((entry) => entry.profile)) lines.push(...profileSummaryLines(workloadCost), '');
  for (const { basis, model, profile, coldTier } of workloadCost) {
    lines.push(...workloadCostLines(model, `W1 and W2 per day, one year held (issue 27): ${basis}`), '');
    if (coldTier) lines.push(...coldTierLines(profile?.name ?? basis, coldTier));
  }
  for (const result of report.profiles ?? []) lines.push(...profileMarkdown(result), '');

  const http = report.parts.http;
  if (http) {
    const d = http.dataset;
    const a = d.chains[0]?.counts;
    lines.push(
      '## Requests (http)',
      '',
      `Dataset scale ${d.scale} (\`${d.dir}\`, ${d.builtThisRun ? 'built in this run' : 'cached'}; generation took ${fmt(d.buildSeconds, 0)} s): ` +
        `${d.chains.map((chain) => `chain ${chain.chainId} ${chain.counts.transactions} tx / ${chain.counts.tokenTransfers} transfers`).join(', ')}; ` +
        (a ? `whale ${a.whaleTransactions} tx, ${a.whaleTokenTransfers} transfers; busy token ${a.busyTokenTransfers} transfers; ` : '') +
        `${d.collections} collections, ${d.orders} orders. ${http.settings.transport}; up to ${http.settings.reps} repetitions per request. ` +
        `Mean read units per page of the mix: ${fmt(http.mixReadUnitsPerPage)}.`,
      '',
      '| request | status | records | calls | in sequence | items read | read / record | wasted (allowed) | RCU (min) | WCU | missing keys | handler p50 / p99 ms | direct p50 / p99 ms | ratio |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of http.requests) {
      lines.push(
        `| ${r.id} | ${r.status} | ${r.records} | ${r.callCount} | ${r.roundTrips} | ${r.itemsRead} | ${fmt(r.itemsReadPerRecord)} | ${r.wastedReads} (${fmt(r.wastedAllowance, 1)}) | ${fmt(r.readUnits)} (${fmt(r.minimumReadUnits)}) | ${fmt(r.writeUnits)} | ${r.missingBatchGetKeys} | ${fmt(r.handlerMs.p50)} / ${fmt(r.handlerMs.p99)} | ${r.directMs ? `${fmt(r.directMs.p50)} / ${fmt(r.directMs.p99)}` : '-'} | ${fmt(r.handlerOverDirect)} |`,
      );
    }
    if (http.coverage)
      lines.push(
        '',
        `Routes: ${http.coverage.measured} of ${http.coverage.served} served routes of shared/routes.ts measured by requests of their own` +
          (http.coverage.uncovered.length > 0
            ? `; **not covered** (their route example only): ${http.coverage.uncovered.join(', ')}`
            : '') +
          `; ${http.coverage.notServed.length} routes not served (501 by design).`,
      );
    if (http.notServed && http.notServed.length > 0) {
      lines.push('', '| route not served | status | DynamoDB calls | handler p50 / p99 ms |', '|---|---|---|---|');
      for (const entry of http.notServed)
        lines.push(`| ${entry.id} | ${entry.status} | ${entry.callCount} | ${fmt(entry.handlerMs.p50)} / ${fmt(entry.handlerMs.p99)} |`);
    }
    lines.push('', '| depth | first page RCU | deep page | deep page RCU | ratio |', '|---|---|---|---|---|');
    for (const entry of http.depth)
      lines.push(
        `| ${entry.name} | ${fmt(entry.firstReadUnits)} | ${entry.deep}${entry.deepStatus >= 400 ? ` (answered ${entry.deepStatus})` : ''} | ${fmt(entry.deepReadUnits)} | ${fmt(entry.ratio)} |`,
      );
    lines.push('');
  }

  const cold = report.parts.cold;
  if (cold) {
    lines.push(
      '## Cold start',
      '',
      `${cold.routes.count} route bundles (esbuild as the stack bundles them), median ${fmt(cold.routes.medianBytes / 1024, 0)} KB; import time over an empty module (${fmt(cold.emptyModuleMs, 1)} ms), median of ${cold.processes} fresh processes${cold.sourceMaps === false ? ' without' : ' with'} NODE_OPTIONS=--enable-source-maps: median ${fmt(cold.routes.medianOverEmptyMs, 1)} ms, slowest ${fmt(cold.routes.maxOverEmptyMs, 1)} ms (${cold.routes.slowest}).${cold.sdkFloor ? ` The floor, a bundle holding only the DynamoDB document client (scripts/bench/lib/sdk-floor.ts, ${fmt(cold.sdkFloor.bytes / 1024, 0)} KB), imports in ${fmt(cold.sdkFloor.overEmptyMs, 1)} ms over empty: the routes add a median ${fmt(cold.routes.medianOverEmptyMs - cold.sdkFloor.overEmptyMs, 1)} ms to it.` : ''}`,
      '',
      '| bundle | functions | KB | import ms over empty (min - max) |',
      '|---|---|---|---|',
    );
    for (const bundle of cold.bundles)
      lines.push(
        `| ${bundle.handler}${bundle.kind === 'job' ? ' (job)' : ''} | ${bundle.functions.join(', ')} | ${fmt(bundle.bytes / 1024, 0)} | ${fmt(bundle.importMs.overEmpty, 1)} (${fmt(bundle.importMs.min - cold.emptyModuleMs, 0)} - ${fmt(bundle.importMs.max - cold.emptyModuleMs, 0)}) |`,
      );
    lines.push('');
  }

  const ingest = report.parts.ingest as (IngestResult & Record<string, any>) | null;
  if (ingest) {
    lines.push(
      '## Ingest',
      '',
      `${ingest.chain?.blocks} anvil blocks, ${ingest.chain?.transactions} transactions: ingest ${fmt(ingest.ingest?.seconds, 1)} s (${fmt(ingest.ingest?.blocksPerSecond, 1)} blocks/s), raw fetch ${fmt(ingest.rawFetch?.seconds, 1)} s, table floor ${fmt(ingest.tableFloor?.seconds, 1)} s; ingest / max(raw fetch, table floor) ${fmt(ingest.ratio.ingestOverSlowestStage)} (target ${ingest.ratio.target}), ingest / raw fetch ${fmt(ingest.ratio.ingestOverRawFetch)}; ` +
        `${fmt(ingest.ingest?.dynamo?.tableWcuPerBlock, 1)} write units and ${fmt(ingest.ingest?.dynamo?.callsPerBlock, 1)} DynamoDB calls per block. Details: the ingest-<time> files beside this one.`,
      '',
    );
    const families = ingest.writesByFamily as PerUnitReport | undefined;
    if (families?.rows) {
      lines.push(
        `Writes by item family (at the table's edge; per transaction, ${families.transactions} transactions and ${families.logs} logs): ` +
          `**${families.totals.writeUnitsPerTx} write units**, ${families.totals.itemsWrittenPerTx} items written, **${fmt(families.totals.bytesStoredPerTx / 1024, 2)} KB stored** per transaction${expiringStoredNote(families)}.`,
        '',
        familyMarkdown(families),
        '',
      );
    }
  }

  const follow = report.parts.follow;
  if (follow) {
    lines.push(
      '## Follow',
      '',
      `${follow.settings.txsPerBlock} transactions a block, a block every ${follow.settings.blockSeconds} s for ${follow.settings.followSeconds} s (${follow.chain.transactions} transactions), \`npm run ingest -- --follow\` in its own process; node traces ${follow.settings.nodeTraces}. ${follow.ingestOutcome}. ` +
        `Lag in blocks p50 ${fmt(follow.lag.blocks.p50)}, p99 **${fmt(follow.lag.blocks.p99)}**, max ${fmt(follow.lag.blocks.max)}; in seconds p50 ${fmt(follow.lag.seconds.p50)}, p99 ${fmt(follow.lag.seconds.p99)}, max ${fmt(follow.lag.seconds.max)}` +
        `${follow.lag.notDone > 0 ? `; ${follow.lag.notDone} blocks never done` : ''}. Details and the profile: the follow-<time> files beside this one.`,
      '',
    );
  }

  const webhooks = report.parts.webhooks;
  if (webhooks) {
    lines.push(
      '## Webhooks',
      '',
      `Matching a Base-profile block (${webhooks.profile.transactionsPerBlock} transactions) and its ${webhooks.profile.burstTransactions}-transaction burst against webhooks spread over ${webhooks.chains} chains (scripts/bench/webhooks.ts): the real matcher, the items serialised and split into deliveries.`,
      '',
      '| webhooks | on the chain | index build ms | block p50 ms | block p99 ms | records a block | matched | deliveries | burst ms | us a record |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...webhooks.runs.map(
        (run) =>
          `| ${run.webhooks} | ${run.onThisChain} | ${fmt(run.indexBuildMs)} | ${fmt(run.blockMs.p50)} | ${fmt(run.blockMs.p99)} | ${run.blockMs.records} | ${run.blockMs.matched} | ${run.blockMs.deliveries} | ${fmt(run.burstMs.total)} | ${fmt(run.microsecondsPerRecord)} |`,
      ),
      '',
    );
  }

  const lambda = report.parts.lambda;
  if (lambda) {
    const d = lambda.cost.deployed;
    lines.push(
      '## Lambda follow',
      '',
      `The ingest handler as Lambda runs it: invoked every ${lambda.settings.scheduleSeconds} s for ${lambda.settings.durationSeconds} s, ${lambda.settings.timeoutSeconds} s each, against anvil mining a block every ${lambda.settings.blockSeconds} s; the chain's status read over HTTP from the local gateway; the deposit queue a local SQS FIFO stand-in whose pollers invoke DetectDeposits in its own execution environment. ${lambda.outcome}. ` +
        `Block-to-API lag in blocks p50 ${fmt(lambda.lag.blocks.p50)}, p99 **${fmt(lambda.lag.blocks.p99)}**, in seconds p50 ${fmt(lambda.lag.seconds.p50)}, p99 ${fmt(lambda.lag.seconds.p99)}${lambda.chaos ? ' (outside the chaos window)' : ''}; ` +
        (lambda.chaos
          ? `chaos: ${lambda.chaos.invocation} killed mid-follow, the chain unwritten ${fmt(lambda.chaos.unwrittenSeconds)} s, lag spike ${fmt(lambda.chaos.lagSpike.blocks)} blocks (${fmt(lambda.chaos.lagSpike.seconds)} s), ${lambda.chaos.noBlockLostOrRepeated ? 'no block lost or repeated' : '**continuity broken**'}; `
          : '') +
        `deposit-to-detected p50 ${fmt(lambda.deposits.seconds.p50)} s, p99 **${fmt(lambda.deposits.seconds.p99)} s** (${lambda.deposits.detected} of ${lambda.deposits.sent}); ` +
        `${lambda.invocations.handovers} handovers (gap p50 ${fmt(lambda.invocations.handoverGapMs.p50, 0)} ms, max ${fmt(lambda.invocations.handoverGapMs.max, 0)} ms), continuity ${lambda.continuity.pass ? 'kept' : '**broken**'}. ` +
        `Billed ${fmt(lambda.cost.run.lambdaSecondsPerSecond)} Lambda-seconds per second (model at the run's timing ${fmt(lambda.cost.modelAtHarnessTiming.perDay.averageConcurrency)}). Deployed cost per chain per day (${d.inputs.memoryMb} MB ${d.inputs.architecture}): **${usd(d.perDay.totalUsd)}** (compute ${usd(d.perDay.computeUsd)}, requests ${usd(d.perDay.requestsUsd)}, lease writes ${usd(d.perDay.leaseWritesUsd)}; x86_64 ${usd(d.otherArchitectureUsd)}). Details: the lambda-<time> files beside this one.`,
      '',
    );
  }

  const load = report.parts.load as (LoadResult & Record<string, any>) | null;
  if (load) {
    lines.push('## Load', '', '| connections | requests/s | p99 ms | errors | RSS MB start / end / +settle |', '|---|---|---|---|---|');
    for (const phase of load.phases as Record<string, any>[])
      lines.push(
        `| ${phase.connections} | ${fmt(phase.requestsPerSecond, 0)} | ${fmt(phase.latencyMs?.p99 ?? phase.p99Ms, 1)} | ${phase.errors} | ${fmt(load.memoryMb?.start?.rss, 0)} / ${fmt(phase.memoryMb?.end?.rss, 0)} / ${fmt(phase.memoryMb?.afterSettle?.rss, 0)} |`,
      );
    lines.push('', `RSS after the last settle / start: ${fmt(load.rssAfterSettleOverStart)}.`, '');
  }

  lines.push('## Every budget', '', '| budget | value | max | pass |', '|---|---|---|---|');
  for (const budget of report.budgets)
    lines.push(
      `| ${budget.name}${budget.note ? ` (${budget.note})` : ''} | ${fmt(budget.value)} | ${fmt(budget.budget)} | ${budget.pass ? 'yes' : '**no**'} |`,
    );
  lines.push('');
  return `${lines.join('\n')}\n`;
}

/** A chain profile's section: the shape it was generated with, its build, its writes by item family. */
export function profileMarkdown(result: ProfileResult): string[] {
  const lines = [`## Chain profile: ${result.profile}`, ''];
  const facts = result.facts;
  if (!facts) {
    lines.push(`No figures: ${result.error ?? 'not built'}.`);
    return lines;
  }
  const shape = facts.shape;
  const percent = (value: number | undefined) => `${fmt((value ?? 0) * 100, 1)} %`;
  const kinds = Object.entries(shape.shareByKind)
    .map(([kind, share]) => `${kind} ${percent(share)}`)
    .join(', ');
  const g = facts.generation;
  const f = facts.writesByFamily;
  lines.push(
    `${shape.blocks} blocks of ${shape.transactionsPerBlock.mean} transactions, one every ${shape.blockSeconds} s (${shape.transactions} transactions; assumed figures and their sources: docs/decisions/bench-profiles.md). ` +
      `Deposits first in every block: ${shape.depositsFirstInEveryBlock ? 'yes' : '**no**'} (${shape.l1AttributesDeposits} L1 attributes deposits, ${shape.userDeposits} user deposits). ` +
      `Mix: ${kinds}. Per transaction: ${shape.logsPerTransaction} logs, ${shape.tokenTransfersPerTransaction} token transfers, ${shape.internalCallsPerTransaction} internal calls. ` +
      `Concentration (Zipf exponent ${facts.assumed.zipfExponent}): ${shape.topToken} carries ${percent(shape.topTokenShare)} of the ERC-20 transfers (the top three ${percent(shape.top3TokenShare)}, ${shape.tokensTransferred} tokens transferred); the most called contract gets ${percent(shape.topContractShare)} of the user transactions, the busiest sender sends ${percent(shape.topSenderShare)} (${shape.senders} senders).`,
    '',
    `Built ${result.builtThisRun ? 'in this run' : 'earlier (cached)'} in ${fmt(g.seconds, 0)} s (\`${result.dir ?? '?'}\`): the real ingest at ${fmt(g.transactionsPerSecond, 1)} transactions/s${facts.size.batchBlocks ? `, batches of ${facts.size.batchBlocks} blocks` : ', default batching'}, ${g.ingestWarnings} ingest warnings${g.peakRssMb ? `, peak RSS ${fmt(g.peakRssMb, 0)} MB (the generated chain and the ingest in one process)` : ''}; the table reported ${fmt(facts.inputs.consumedWriteUnitsPerTransaction)} write units per transaction consumed (no GSI), ${fmt(facts.inputs.ingestReadUnitsPerTransaction ?? 0)} read units per transaction read by the ingest.`,
    '',
    `Writes by item family (at the table's edge; per transaction, ${f.transactions} transactions and ${f.logs} logs): **${f.totals.writeUnitsPerTx} write units**, ${f.totals.itemsWrittenPerTx} items written, **${fmt(f.totals.bytesStoredPerTx / 1024, 2)} KB stored** per transaction${expiringStoredNote(f)}.`,
    '',
    familyMarkdown(f),
  );
  if (facts.partitions) {
    const p = facts.partitions;
    lines.push(
      '',
      `Hottest partitions (table and GSI keys; write units a second at the profile's rate and at ${p.targetTransactionsPerSecond} transactions a second, three times Base's average; DynamoDB's limit is 1,000 a partition): ` +
        `**${fmt(p.hottestPartitionWriteUnitsPerSecondAt3xBase, 1)} at ${p.targetTransactionsPerSecond} tx/s** (${p.hottestPartitionWriteUnitsPerSecondAt3xBase <= 1000 ? 'within' : '**over**'} the limit).`,
      '',
      '| partition key | WU/s (profile) | WU/s at 3x Base |',
      '|---|---|---|',
      ...p.hottest.map((row) => `| \`${row.key}\` | ${fmt(row.writeUnitsPerSecond, 1)} | ${fmt(row.writeUnitsPerSecondAtTarget, 1)} |`),
    );
  }
  if (facts.coldTier) {
    const c = facts.coldTier;
    lines.push(
      '',
      `Cold tier (the compactor run over the build as one span of ${c.spanBlocks} blocks, ${fmt(c.spanSeconds / 60, 1)} minutes of chain, into a local S3; per transaction): ` +
        `${fmt(c.itemsPerTransaction, 2)} items moved into ${fmt(c.pointersPerTransaction, 2)} parts (pointer items of ${c.pointerBytes} B), ` +
        `**${fmt(c.coldBytesPerTransaction / 1024, 2)} KB in S3** (${fmt(c.openedBytesPerTransaction / 1024, 2)} KB opened), ` +
        `${fmt(c.compactorCpuMsPerTransaction, 2)} ms of CPU and ${fmt(c.compactorReadUnitsPerTransaction, 1)} read units; ${c.objects} objects.`,
    );
  }
  return lines;
}

/** Writes latest.json, latest.md and their dated copies into `dir`; returns the files written. */
export async function writeReport(report: Report, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const stamp = report.date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const md = markdown(report);
  const files: [string, string][] = [
    [`bench-${stamp}.json`, json],
    [`bench-${stamp}.md`, md],
    ['latest.json', json],
    ['latest.md', md],
  ];
  for (const [name, text] of files) {
    const file = path.join(dir, name);
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
  }
  return files.map(([name]) => path.join(dir, name));
}
