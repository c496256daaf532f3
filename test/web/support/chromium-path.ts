/** The Chromium the browser tests drive: Debian's (`apt-get install chromium`), or the one CHROMIUM_PATH names. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}
