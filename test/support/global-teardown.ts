export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __embeddedDb?: { stop(): Promise<void> } }).__embeddedDb?.stop();
}
