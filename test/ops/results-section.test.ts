import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptSections, writeSection } from '../../bench/lib/results-section';

const HEADING = '## PostgreSQL restarts under load';

describe('a bench section in bench/results.md', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'results-section-')), 'results.md');

  it('is appended, then replaced in place, leaving the sections around it', () => {
    fs.writeFileSync(file, '# Results\n\n## Latency\n\nfast\n');
    writeSection(file, HEADING, 'first run');
    writeSection(file, HEADING, 'second run');
    expect(fs.readFileSync(file, 'utf8')).toBe(`# Results\n\n## Latency\n\nfast\n\n${HEADING}\n\nsecond run\n`);
    fs.writeFileSync(file, `# Results\n\n${HEADING}\n\nold\n\n## Billing\n\nok\n`);
    writeSection(file, HEADING, 'new');
    expect(fs.readFileSync(file, 'utf8')).toBe(`# Results\n\n${HEADING}\n\nnew\n\n## Billing\n\nok\n`);
  });

  it('survives the rewrite of the file by `npm run bench`', () => {
    fs.writeFileSync(file, `# Results\n\n${HEADING}\n\nkept\n\n## Billing\n\nold\n`);
    fs.writeFileSync(file, `# New results\n\n## Billing\n\nnew\n${keptSections(file)}`);
    expect(fs.readFileSync(file, 'utf8')).toBe(`# New results\n\n## Billing\n\nnew\n\n${HEADING}\n\nkept\n`);
  });
});
