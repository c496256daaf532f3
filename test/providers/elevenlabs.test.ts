import { elevenlabsAdapter } from '../../src/core/providers/elevenlabs';
import { diarizedText } from '../../src/core/providers/elevenlabs/diarization';
import { DEFAULT_VOICE_ID } from '../../src/core/providers/elevenlabs/speech';
import { MediaRequest, MediaStart, ProviderConnection, ProviderError } from '../../src/core/providers/types';
import { elevenlabsSandbox } from '../../src/sandbox/elevenlabs';
import { syntheticWav } from '../../src/sandbox/synthetic';
import { fixtureReader, recordingFetch, SentRequest, useVendorSandbox } from '../support/vendor-sandbox';

const media = elevenlabsAdapter.media!;
const elevenlabs = useVendorSandbox(elevenlabsAdapter, elevenlabsSandbox);
let sent: SentRequest[];
let conn: ProviderConnection;

beforeEach(() => {
  sent = [];
  // defaultBaseUrl has no path: its pathname is "/", which must not break the joined URLs.
  conn = elevenlabs.conn({ fetch: recordingFetch(sent) });
});

function output(start: MediaStart) {
  if (start.state !== 'completed') throw new Error(`expected completed, got ${start.state}`);
  return start.output;
}

const tts = (over: Partial<MediaRequest> = {}): MediaRequest => ({
  category: 'tts',
  slug: 'vendor-v2',
  upstreamModel: 'eleven_multilingual_v2',
  prompt: 'Hello there, this is a test.',
  ...over,
});

describe('elevenlabs text-to-speech', () => {
  it('posts text, model_id and voice_settings.speed to the voice with output_format, and returns mp3 bytes', async () => {
    const out = output(await media.start(tts({ voiceId: 'voice123', speed: 1.1 }), conn));
    const url = new URL(sent[0].url);
    expect(sent[0].method).toBe('POST');
    expect(url.pathname).toBe('/elevenlabs/v1/text-to-speech/voice123');
    expect(url.searchParams.get('output_format')).toBe('mp3_44100_128');
    expect(sent[0].headers['xi-api-key']).toBe('test-key');
    expect(sent[0].body).toEqual({
      text: 'Hello there, this is a test.',
      model_id: 'eleven_multilingual_v2',
      voice_settings: { speed: 1.1 },
    });
    expect(out.files[0].mime).toBe('audio/mpeg');
    expect(out.files[0].data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfb]));
    expect(out.usage).toEqual({ characters: 'Hello there, this is a test.'.length });
  });

  it('uses the default voice, omits voice_settings without a speed and clamps speed into 0.7..1.2', async () => {
    await media.start(tts(), conn);
    expect(new URL(sent[0].url).pathname).toBe(`/elevenlabs/v1/text-to-speech/${DEFAULT_VOICE_ID}`);
    expect(sent[0].body).not.toHaveProperty('voice_settings');
    await media.start(tts({ speed: 3 }), conn);
    expect(sent[1].body?.voice_settings).toEqual({ speed: 1.2 });
  });

  it('asks for raw PCM when WAV is wanted and wraps it in a WAV header', async () => {
    const out = output(await media.start(tts({ audioFormat: 'wav' }), conn));
    expect(new URL(sent[0].url).searchParams.get('output_format')).toBe('pcm_24000');
    const wav = out.files[0].data;
    expect(out.files[0].mime).toBe('audio/wav');
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(24000);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
  });
});

describe('elevenlabs speech-to-text', () => {
  const stt = (over: Partial<MediaRequest> = {}): MediaRequest => ({
    category: 'stt',
    slug: 'vendor-scribe-v2',
    upstreamModel: 'scribe_v2',
    audio: { data: syntheticWav(2), mime: 'audio/wav', filename: 'meeting.wav' },
    ...over,
  });

  it('sends multipart model_id, file, language_code and diarize, and builds [Speaker N] lines', async () => {
    const out = output(await media.start(stt({ language: 'en', diarize: true }), conn));
    expect(new URL(sent[0].url).pathname).toBe('/elevenlabs/v1/speech-to-text');
    expect(sent[0].headers['xi-api-key']).toBe('test-key');
    expect(sent[0].form).toMatchObject({
      model_id: 'scribe_v2',
      language_code: 'en',
      diarize: 'true',
      file: { name: 'meeting.wav', type: 'audio/wav', size: syntheticWav(2).length },
    });
    expect(out.text).toBe('[Speaker 1]: Hello from the sandbox.\n[Speaker 2]: This transcript is synthetic.\n[Speaker 1]: Goodbye.');
    expect(out.durationSeconds).toBe(2);
    expect(out.files).toEqual([]);
    // Timed segments by sentence and speaker, numbered as the text numbers them.
    expect(out.segments!.map((seg) => [seg.speaker, seg.text])).toEqual([
      [1, 'Hello from the sandbox.'],
      [2, 'This transcript is synthetic.'],
      [1, 'Goodbye.'],
    ]);
    expect(out.segments![2].end).toBeLessThanOrEqual(2);
    expect(out.words).toHaveLength(9);
    expect(out.language).toBe('en');
  });

  it('returns plain text without diarization', async () => {
    const out = output(await media.start(stt(), conn));
    expect(sent[0].form?.diarize).toBe('false');
    expect(sent[0].form).not.toHaveProperty('language_code');
    expect(out.text).toBe('Hello from the sandbox. This transcript is synthetic. Goodbye.');
    expect(out.segments!.map((seg) => seg.text)).toEqual(['Hello from the sandbox.', 'This transcript is synthetic.', 'Goodbye.']);
    expect(out.segments!.every((seg) => seg.speaker === undefined)).toBe(true);
  });

  it('a 429 too_many_concurrent_requests is rate_limited', async () => {
    const req = stt({ audio: { data: syntheticWav(1), mime: 'audio/wav', filename: 'x[[fail:overloaded]].wav' } });
    await expect(media.start(req, conn)).rejects.toMatchObject({ kind: 'rate_limited', upstreamStatus: 429 });
  });
});

describe('elevenlabs music', () => {
  const song = (over: Partial<MediaRequest> = {}): MediaRequest => ({
    category: 'music',
    slug: 'vendor-music',
    upstreamModel: 'music_v1',
    prompt: 'warm lo-fi beat',
    durationSeconds: 45,
    ...over,
  });

  it('posts prompt and music_length_ms and answers completed with the track', async () => {
    const out = output(await media.start(song(), conn));
    expect(new URL(sent[0].url).pathname).toBe('/elevenlabs/v1/music');
    expect(sent[0].body).toEqual({ prompt: 'warm lo-fi beat', music_length_ms: 45000, model_id: 'music_v1' });
    expect(out.files[0].mime).toBe('audio/mpeg');
    expect(out.durationSeconds).toBe(45);
    // 45 s of 128 kbps CBR is ~720 kB
    expect(out.files[0].data.length).toBeGreaterThan(700_000);
  });

  it('a bad_prompt refusal is content_policy', async () => {
    const err = await media.start(song({ prompt: 'like a famous band [[fail:policy]]' }), conn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'content_policy', upstreamStatus: 400 });
  });
});

describe('elevenlabs failures', () => {
  it('a missing key is an auth error', async () => {
    await expect(media.start(tts(), { ...conn, apiKey: '' })).rejects.toMatchObject({ kind: 'auth', upstreamStatus: 401 });
  });

  it('system_busy is overloaded', async () => {
    await expect(media.start(tts({ prompt: 'hi [[fail:overloaded]]' }), conn)).rejects.toMatchObject({ kind: 'overloaded' });
  });

  it('a request that never answers is a timeout', async () => {
    await expect(media.start(tts({ prompt: '[[fail:timeout]]' }), { ...conn, timeoutMs: 300 })).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('audio that breaks off is an upstream error', async () => {
    await expect(media.start(tts({ prompt: 'a b c d e f g h [[fail:midstream]]' }), conn)).rejects.toMatchObject({ kind: 'upstream' });
  });

  it('empty text is refused before calling the vendor', async () => {
    await expect(media.start(tts({ prompt: '  ' }), conn)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(sent).toHaveLength(0);
  });

  it('categories it does not serve are bad requests', async () => {
    await expect(media.start({ category: 'image', slug: 'x', upstreamModel: 'x', prompt: 'p' }, conn)).rejects.toMatchObject({
      kind: 'bad_request',
    });
  });
});

describe('diarized text', () => {
  it('numbers speakers by first appearance and keeps one line per turn', () => {
    expect(
      diarizedText([
        { text: ' ', type: 'spacing' },
        { text: 'Yo', type: 'word', speaker_id: 'speaker_3' },
        { text: ' ', type: 'spacing', speaker_id: 'speaker_3' },
        { text: 'there', type: 'word', speaker_id: 'speaker_3' },
        { text: ' ', type: 'spacing', speaker_id: 'speaker_0' },
        { text: 'Hey', type: 'word', speaker_id: 'speaker_0' },
        { text: '(laughs)', type: 'audio_event', speaker_id: 'speaker_0' },
        { text: 'ok', type: 'word' },
      ]),
    ).toBe('[Speaker 1]: Yo there\n[Speaker 2]: Hey(laughs)ok');
  });
});

describe('elevenlabs replaying documented payloads', () => {
  const fixture = fixtureReader('elevenlabs');
  const json = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'application/json' } });
  const realConn = (inner: typeof fetch): ProviderConnection => ({
    apiKey: 'xi-real',
    baseUrl: elevenlabsAdapter.defaultBaseUrl,
    sandbox: false,
    fetch: recordingFetch([], inner),
    timeoutMs: 2000,
    faults: elevenlabsAdapter.faults,
  });
  const stt = (diarize: boolean): MediaRequest => ({
    category: 'stt',
    slug: 'vendor-scribe-v2',
    upstreamModel: 'scribe_v2',
    diarize,
    audio: { data: Buffer.from('ID3'), mime: 'audio/mpeg', filename: 'a.mp3' },
  });

  it('maps the documented transcription response', async () => {
    let seen = '';
    const out = output(
      await media.start(
        stt(false),
        realConn(async (input) => ((seen = String(input)), json(fixture('stt-response.json')))),
      ),
    );
    expect(seen).toBe('https://api.elevenlabs.io/v1/speech-to-text');
    expect(out.text).toBe('The complete transcribed text from the audio file.');
    expect(out.durationSeconds).toBe(12.4);
    expect(out.usage).toEqual({ seconds: 12.4 });
  });

  it('builds speaker lines from a diarized response, numbering speaker_1 first', async () => {
    const out = output(
      await media.start(
        stt(true),
        realConn(async () => json(fixture('stt-diarized-response.json'))),
      ),
    );
    expect(out.text).toBe('[Speaker 1]: Hi, is this support?\n[Speaker 2]: Yes, how can I help?\n[Speaker 1]: My order is late.');
    expect(out.durationSeconds).toBe(4.3); // no audio_duration_secs: the last word's end
  });

  it.each([
    ['error-401-invalid-api-key.json', 401, 'auth', /Invalid API key/],
    ['error-400-validation.json', 400, 'bad_request', /keyterms/],
    ['error-429-too-many-concurrent.json', 429, 'rate_limited', /concurrency limit/],
  ])('%s (HTTP %i) is %s', async (name, status, kind, message) => {
    const err = await media
      .start(
        tts(),
        realConn(async () => json(fixture(name), status)),
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind, upstreamStatus: status, provider: 'elevenlabs' });
    expect((err as Error).message).toMatch(message);
  });
});
