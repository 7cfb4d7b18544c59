/**
 * The test files' order: vitest's own (the durations of the last run on this machine, else the files'
 * sizes), except that the files known to run longest start first. The suite runs on two workers, and a
 * clean clone (CI) has no durations: a long file of few lines started near the end was the run's tail,
 * one worker busy for minutes while the other waited (a 10,000-transaction block's test: 144 s).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first (seconds on CI, 2026-12-01). */
const LONGEST = [
  'test/shared/ingest/large-block.test.ts', // 144
  'test/shared/insights/range-seek.test.ts', // 69
  'test/shared/ingest/sliced-blocks.test.ts', // 62
  'test/shared/ingest/provider-faults.test.ts', // 49
  'test/shared/db/cold-query.test.ts', // 45
  'test/functions/explorer/tokens.test.ts', // 43
  'test/shared/ingest/follow-overlap.test.ts', // 35
  'test/shared/ingest/range-heads.test.ts', // 35
  'test/shared/db/union-query.test.ts', // 33
];

const rankOf = (file: TestSpecification): number => {
  const path = file.moduleId.replaceAll('\\', '/');
  const rank = LONGEST.findIndex((name) => path.endsWith(`/${name}`));
  return rank === -1 ? LONGEST.length : rank;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rankOf(a.file) - rankOf(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
