import { it } from 'vitest';

// The PostgreSQL run of `npm test` when AIRDATE_TEST_POSTGRES_URL is not set (see vitest.config.ts):
// one skipped test whose name says why, or, under CI, one failure.
const reason = 'PostgreSQL tests skipped: AIRDATE_TEST_POSTGRES_URL is not set (see docs/postgres.md)';

if (process.env.AIRDATE_TEST_POSTGRES_REQUIRED) {
  it('PostgreSQL tests are mandatory under CI, but AIRDATE_TEST_POSTGRES_URL is not set (.ci/run sets it)', () => {
    throw new Error('set AIRDATE_TEST_POSTGRES_URL to a PostgreSQL server where tests may create databases');
  });
} else {
  it.skip(reason, () => undefined);
}
