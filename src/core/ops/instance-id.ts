import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * This instance's name, stable across restarts so a restart recognises the work it left behind: INSTANCE_ID,
 * else one generated once and kept in DATA_DIR/instance-id.
 */
export function resolveInstanceId(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'instance-id');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch {
    // first start
  }
  const id = randomUUID();
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${id}\n`);
  return id;
}
