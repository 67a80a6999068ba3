// A process of its own that brings the dashboard's read-models up to date, as a sweeper would: roll-ups and the
// phone directory, in the sweeper's own steps, until there is nothing left. Prints { hours, steps } on one line.
// Usage: node --import tsx test/helpers/read-models-process.ts DATABASE_URL DATA_DIR
import { createServices } from '../../src/services.js';
import { openStore } from '../../src/store/database.js';
import { TEST_PUBLIC_URL, TEST_SECRET } from './app.js';

const [url, dataDir] = process.argv.slice(2);
if (!url || !dataDir) throw new Error('usage: read-models-process.ts DATABASE_URL DATA_DIR');
const store = await openStore({ url, dataDir, poolMax: 2 });
try {
  const services = createServices({ store, secret: TEST_SECRET, publicUrl: TEST_PUBLIC_URL });
  let hours = 0;
  let steps = 0;
  for (;;) {
    const rolled = await services.rollups.roll();
    const indexed = await services.phoneDirectory.index();
    hours += rolled;
    steps += indexed;
    if (rolled + indexed === 0) break;
  }
  await store.committed();
  process.stdout.write(`${JSON.stringify({ hours, steps })}\n`);
} finally {
  await store.close();
}
