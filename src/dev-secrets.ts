import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The file under DATA_DIR that keeps the generated development secrets (mode 0600). */
export const DEV_SECRETS_FILE = 'dev-secrets.json';

export interface DevelopmentSecrets {
  jwtSecret: string;
  apiKeyPepper: string;
  botWebhookSecret: string;
}

const random = (bytes: number) => crypto.randomBytes(bytes).toString('base64url');

function isSecrets(value: unknown): value is DevelopmentSecrets {
  const v = value as Partial<DevelopmentSecrets> | null;
  return (
    typeof v?.jwtSecret === 'string' &&
    v.jwtSecret.length >= 32 &&
    typeof v.apiKeyPepper === 'string' &&
    v.apiKeyPepper.length >= 16 &&
    typeof v.botWebhookSecret === 'string' &&
    /^[A-Za-z0-9_-]{16,256}$/.test(v.botWebhookSecret)
  );
}

function readSecrets(file: string): DevelopmentSecrets | undefined {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return isSecrets(parsed) ? parsed : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/**
 * Random secrets for development, made on first start and reused afterwards (so restarts keep sessions and
 * keys). Nothing about them can be guessed from the machine. The file is created exclusively with mode 0600:
 * when two processes start at once, the second one reads what the first wrote.
 */
export function developmentSecrets(dataDir: string): DevelopmentSecrets {
  const file = path.join(dataDir, DEV_SECRETS_FILE);
  const existing = readSecrets(file);
  if (existing) {
    fs.chmodSync(file, 0o600);
    return existing;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const fresh: DevelopmentSecrets = { jwtSecret: random(48), apiKeyPepper: random(32), botWebhookSecret: random(32) };
  const temp = `${file}.${process.pid}.${random(6)}`;
  fs.writeFileSync(temp, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    // link() fails when the file exists: the first writer wins, the others read its secrets.
    fs.linkSync(temp, file);
    return fresh;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = readSecrets(file);
    if (!winner) throw new Error(`${file} is not a valid secrets file: delete it to have it generated again`);
    return winner;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
