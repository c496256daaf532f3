import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { chromiumPath } from '../web/support/chromium-path';
import { browserTests, missingChromium } from './browser-prerequisite';

/** Stops the run at once, with one message, when a test file in it cannot run on this machine. */
function checkPrerequisites(): void {
  // Noted by test/support/sequencer.js: only the files of this run count (`npm test -- test/cli` needs no browser).
  const inRun = (globalThis as { __testPathsInRun?: string[] }).__testPathsInRun ?? [];
  const problem = missingChromium(chromiumPath(), browserTests(inRun));
  if (problem) {
    process.stderr.write(`\n${problem}\n\n`);
    process.exit(1);
  }
}

/** Tests use DATABASE_URL when set; otherwise one embedded PostgreSQL serves the whole run. */
export default async function globalSetup(): Promise<void> {
  checkPrerequisites();
  if (process.env.DATABASE_URL) return;
  const db = await startEmbeddedPostgres(path.join(__dirname, '../../data/test-pg'));
  process.env.DATABASE_URL = db.url;
  (globalThis as { __embeddedDb?: { stop(): Promise<void> } }).__embeddedDb = db;
}
