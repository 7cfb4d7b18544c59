/**
 * The order test files start in: the slowest first, then vitest's own order. On a clean clone vitest
 * has no durations cached and starts larger files first, so a small file with a long test (the
 * 10,000-transaction block: about 2 minutes on 2 cores) started among the last and ran alone at the
 * end while the other worker had finished: the run's wall time grew by most of its length. Files are
 * named here by the durations of a clean-clone CI run (2026-11-30: 115, 51, 37, 36, 36, 36, 34, 34 s);
 * a file not listed keeps vitest's order, one listed that no longer exists changes nothing.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOWEST_FIRST: readonly string[] = [
  'test/shared/ingest/large-block.test.ts',
  'test/shared/insights/range-seek.test.ts',
  'test/fuzz/requests.test.ts',
  'test/shared/ingest/provider-faults.test.ts',
  'test/scripts/bench/dataset/build-resume.test.ts',
  'test/shared/ingest/follow-overlap.test.ts',
  'test/functions/explorer/tokens.test.ts',
  'test/scripts/reference-browser.test.ts',
];

export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOWEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: files not listed keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
