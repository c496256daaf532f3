import { per1kCharacters, perAudioMinute, perSecond, type PriceSource, type VendorPriceList } from '../prices';

// ElevenLabs' API prices: speech per 1000 characters, Scribe per hour of audio, music per minute. The rate is the
// same on every plan (plans bundle usage; they do not lower it).
const FROM: PriceSource = { source: 'https://elevenlabs.io/pricing/api', read: '2026-11-28' };

export const ELEVENLABS_PRICES: VendorPriceList = {
  eleven_multilingual_v2: per1kCharacters(0.1, FROM),
  eleven_flash_v2_5: per1kCharacters(0.05, FROM),
  eleven_v3: per1kCharacters(0.1, FROM),
  scribe_v2: perAudioMinute(0.22 / 60, { ...FROM, note: '$0.22 per hour' }),
  music_v1: perSecond(0.3 / 60, { ...FROM, note: '$0.30 per minute' }),
};
