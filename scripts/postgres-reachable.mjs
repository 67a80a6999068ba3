// Whether PostgreSQL answers at `url`: true, or why not (the test runner and the benchmark both ask, and say why
// they skip or fail).
import pg from 'pg';

export async function postgresReachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    return err instanceof Error ? err.message || String(err) : String(err);
  } finally {
    await client.end().catch(() => {});
  }
}
