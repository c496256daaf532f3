import crypto from 'node:crypto';
import type { BenchUser } from './service-fixture';

/**
 * The requests of the PostgreSQL-restart bench, one kind per function. Each prompt carries a tag of its own
 * (`[pgr:<tag>]`), stored with the generation, so an answer can be matched to its generation id in SQL when the
 * surface does not name the id (the /v1 chat surface doesn't); the /api/v2 surfaces name it and it is kept too.
 */
export type Kind = 'v1 chat' | 'v1 chat stream' | 'v2 stream' | 'v2 image' | 'v2 image idempotent';

export interface Delivered {
  kind: Kind;
  tag: string;
  userId: number;
  /** When the surface names it. */
  generationId?: number;
}

export class LoadTally {
  readonly delivered: Delivered[] = [];
  readonly refused = new Map<string, number>();
  /** Idempotent images: the tags of every key sent, delivered or not (each must be billed at most once). */
  readonly idempotentTags: string[] = [];
  /** Generations answered `pending` (handed to the job queue) and polled. */
  readonly queued: number[] = [];
  sent = 0;

  /** @returns false, for `return tally.refuse(...)` in a request that was not delivered */
  refuse(what: string): false {
    this.refused.set(what, (this.refused.get(what) ?? 0) + 1);
    return false;
  }
}

const tagOf = () => crypto.randomBytes(6).toString('hex');
const json = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  ...extra,
});

/** A non-streamed /v1 chat: delivered when it answers 200 with a choice. */
async function v1Chat(base: string, user: BenchUser, tally: LoadTally): Promise<boolean> {
  const tag = tagOf();
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: json(user.key),
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Name a river [pgr:${tag}]` }] }),
  });
  const body = (await res.json().catch(() => ({}))) as { choices?: unknown[] };
  if (res.status !== 200 || !body.choices?.length) return tally.refuse(`v1 chat ${res.status}`);
  tally.delivered.push({ kind: 'v1 chat', tag, userId: user.id });
  return true;
}

/** A streamed /v1 chat: delivered when a finish_reason and [DONE] arrived with no error chunk. */
async function v1ChatStream(base: string, user: BenchUser, tally: LoadTally): Promise<boolean> {
  const tag = tagOf();
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: json(user.key),
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: `Tell me about tides [pgr:${tag}]` }],
    }),
  });
  const text = await res.text().catch(() => '');
  if (res.status !== 200) return tally.refuse(`v1 chat stream ${res.status}`);
  const finished = /"finish_reason":"[a-z_]+"/.test(text) && text.includes('data: [DONE]');
  if (!finished || /^data: \{"error"/m.test(text)) return tally.refuse('v1 chat stream ended in an error');
  tally.delivered.push({ kind: 'v1 chat stream', tag, userId: user.id });
  return true;
}

/** A streamed /api/v2 generate: delivered when generation_end says completed. */
async function v2Stream(base: string, user: BenchUser, tally: LoadTally): Promise<boolean> {
  const tag = tagOf();
  const res = await fetch(`${base}/api/v2/generate/stream`, {
    method: 'POST',
    headers: json(user.key),
    body: JSON.stringify({ model: 'gpt-4o-mini', prompt: `Tell me about tides [pgr:${tag}]` }),
  });
  const text = await res.text().catch(() => '');
  if (res.status !== 200) return tally.refuse(`v2 stream ${res.status}`);
  const end = /event: generation_end\ndata: (.*)/.exec(text);
  if (!end) return tally.refuse('v2 stream cut without its end');
  const data = JSON.parse(end[1]) as { generation_id: number; status: string };
  if (data.status !== 'completed') return tally.refuse(`v2 stream ${data.status}`);
  tally.delivered.push({ kind: 'v2 stream', tag, userId: user.id, generationId: data.generation_id });
  return true;
}

/** Polls `GET /api/v2/generate/{id}` every 500 ms for up to 60 s; returns the last status seen. */
async function polled(base: string, user: BenchUser, id: number): Promise<string> {
  let status = 'pending';
  for (const deadline = Date.now() + 60_000; status === 'pending' && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 500));
    const res = await fetch(`${base}/api/v2/generate/${id}`, { headers: json(user.key) }).catch(() => undefined);
    const body = (await res?.json().catch(() => ({}))) as { status?: string } | undefined;
    if (res?.status === 200 && body?.status) status = body.status;
  }
  return status;
}

/** One image request; with an Idempotency-Key it is retried (same key, same body) until it answers, up to 5 tries. */
async function v2Image(base: string, user: BenchUser, tally: LoadTally, idempotent: boolean): Promise<boolean> {
  const tag = tagOf();
  const kind: Kind = idempotent ? 'v2 image idempotent' : 'v2 image';
  const headers = json(user.key, idempotent ? { 'idempotency-key': `pgr-${tag}` } : {});
  const body = JSON.stringify({ model: 'flux-dev', prompt: `a lighthouse at dusk [pgr:${tag}]` });
  if (idempotent) tally.idempotentTags.push(tag);
  for (let attempt = 1; attempt <= (idempotent ? 5 : 1); attempt++) {
    try {
      const res = await fetch(`${base}/api/v2/generate`, { method: 'POST', headers, body });
      const answer = (await res.json().catch(() => ({}))) as { id?: number; status?: string };
      // An answer handed to the job queue (status pending) is polled as a client does, until it ends.
      if (res.status === 200 && answer.status === 'pending' && answer.id) {
        tally.queued.push(answer.id);
        answer.status = await polled(base, user, answer.id);
      }
      if (res.status === 200 && answer.status === 'completed' && answer.id) {
        tally.delivered.push({ kind, tag, userId: user.id, generationId: answer.id });
        return true;
      }
      tally.refuse(`${kind} ${res.status} ${answer.status ?? ''}`.trim());
    } catch (err) {
      tally.refuse(`${kind} connection: ${(err as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 250)); // as a client backs off before it retries
  }
  return false;
}

/**
 * The mix, by turn: 2 of 8 /v1 chats (sync, streamed), 3 /api/v2 streams, 3 images (2 of them with a key).
 * @returns whether the answer was delivered
 */
export async function oneRequest(base: string, user: BenchUser, turn: number, tally: LoadTally): Promise<boolean> {
  tally.sent += 1;
  switch (turn % 8) {
    case 0:
      return v1Chat(base, user, tally);
    case 1:
      return v1ChatStream(base, user, tally);
    case 2:
    case 3:
    case 4:
      return v2Stream(base, user, tally);
    case 5:
      return v2Image(base, user, tally, false);
    default:
      return v2Image(base, user, tally, true);
  }
}
