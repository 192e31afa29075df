import { describe, expect, it } from 'vitest';
import { crashSteps } from '../../src/jobs/crash-points.ts';
import { jobDefinitions, jobNames } from '../../src/jobs.ts';

/** The list of every job (src/jobs.ts), as the job system receives it. */
describe('the jobs', () => {
  it('keep the names stored jobs carry (a job renamed would strand those queued under its old name), each once', () => {
    expect(jobDefinitions.map((job) => job.name)).toEqual(['catalog-refresh', 'account-sync', 'release-check', 'delivery-sweep', 'account-release-check', 'webhook-delivery', 'media-server-pull', 'media-server-periodic-pull']);
    expect(Object.values(jobNames).sort()).toEqual(jobDefinitions.map((job) => job.name).sort());
  });

  it('recur as before, the catalog refresh scheduled before the release check', () => {
    const recurring = jobDefinitions.filter((job) => job.every !== undefined).map((job) => [job.name, job.every]);
    expect(recurring).toEqual([['catalog-refresh', '30 minutes'], ['release-check', '30 minutes'], ['delivery-sweep', '1 minute'], ['media-server-periodic-pull', '6 hours']]);
  });

  it('declare every crash step AIRDATE_TEST_CRASH_AT accepts: a process told to die at one has a job that reaches it', () => {
    const declared = new Set(jobDefinitions.flatMap((job) => job.crashPoints ?? []));
    expect(crashSteps.filter((step) => !declared.has(step))).toEqual([]);
  });
});
