/**
 * Named steps of the release engine where a crash is tested (AIRDATE_TEST_CRASH_AT): a process
 * configured with one kills itself with SIGKILL the first time a job reaches it, exactly as if it
 * had been killed there, so a test can start a new process and check that nothing is lost or sent
 * twice under two ids. Unset (always, in use), reaching a step does nothing.
 */
export const crashSteps = [
  /** An account check recorded its new notifications and has not queued their deliveries yet. */
  'release-recorded',
  /** A delivery read its notification and is about to send it. */
  'delivery-before-send',
  /** The receiver answered; the attempt is not recorded yet. */
  'delivery-after-send',
  /** The attempt is recorded; the delivery job has not finished yet. */
  'delivery-after-record',
] as const;

export type CrashStep = (typeof crashSteps)[number];

/** Called by a job at each step (of `Step`, those it declares); kills the process at the configured one. */
export type StepReached<Step extends CrashStep = CrashStep> = (step: Step) => void;

/** The step hook for `crashAt` (AIRDATE_TEST_CRASH_AT): does nothing when it is unset. */
export function crashAt(crashAt: CrashStep | undefined): StepReached {
  if (crashAt === undefined) return () => {};
  return (step) => {
    if (step !== crashAt) return;
    process.kill(process.pid, 'SIGKILL');
    // The signal is delivered at once; nothing after this point may run meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  };
}
