import type { Reporter, TestModule } from 'vitest/node';

interface Tally {
  files: Set<string>;
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * The run's last lines: what ran on each engine (a vitest project per engine, see test/engines.ts),
 * then `N passed, N failed, N skipped` for the whole run. A file that failed outside its tests
 * (an import, a hook) counts as one failure, so the line never says 0 failed for a failed run.
 */
export default class EngineSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const tallies = new Map<string, Tally>();
    for (const module of modules) {
      const name = module.project.name || 'default';
      let tally = tallies.get(name);
      if (!tally) tallies.set(name, (tally = { files: new Set(), passed: 0, failed: 0, skipped: 0 }));
      tally.files.add(module.relativeModuleId);
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') tally.passed++;
        else if (state === 'failed') failedTests++;
        else tally.skipped++;
      }
      tally.failed += failedTests || (module.state() === 'failed' ? 1 : 0);
    }
    if (tallies.size === 0) return;
    const line = (t: Omit<Tally, 'files'>) => `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`;
    // The default engine first.
    const names = [...tallies.keys()].sort(
      (a, b) => Number(b === 'sqlite') - Number(a === 'sqlite') || a.localeCompare(b),
    );
    console.log('');
    if (names.length > 1) {
      const onAll = [...tallies.get(names[0]!)!.files].filter((file) =>
        names.every((name) => tallies.get(name)!.files.has(file)),
      ).length;
      const only = names.map((name) => `${tallies.get(name)!.files.size - onAll} on ${name} only`);
      console.log(`${onAll} files ran on every engine, ${only.join(', ')} (test/engines.ts says why)`);
    }
    for (const name of names) {
      const tally = tallies.get(name)!;
      console.log(`${name}: ${line(tally)} (${tally.files.size} files)`);
    }
    const total = { passed: 0, failed: 0, skipped: 0 };
    for (const tally of tallies.values()) {
      total.passed += tally.passed;
      total.failed += tally.failed;
      total.skipped += tally.skipped;
    }
    console.log(line(total));
  }
}
