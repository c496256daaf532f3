/** One entry of Scribe's `words` array. */
export interface ScribeWord {
  text: string;
  start?: number;
  end?: number;
  type?: string; // word | spacing | audio_event
  speaker_id?: string | null;
}

/**
 * Turns diarized words into our text form: one line per run of one speaker, `[Speaker N]: ...`, with N counted
 * from 1 in order of first appearance (speaker_0 is not necessarily Speaker 1). Spacing tokens keep the
 * words apart; tokens without a speaker stay with the current line.
 */
export function diarizedText(words: ScribeWord[]): string {
  const numbers = new Map<string, number>();
  const lines: Array<{ speaker: number; text: string }> = [];
  for (const word of words) {
    const id = word.speaker_id ?? undefined;
    const isSpeech = word.type !== 'spacing';
    if (id !== undefined && isSpeech) {
      if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
      const speaker = numbers.get(id) as number;
      if (lines.length === 0 || lines[lines.length - 1].speaker !== speaker) lines.push({ speaker, text: '' });
    }
    if (lines.length === 0) continue; // leading spacing before anyone spoke
    lines[lines.length - 1].text += word.text;
  }
  return lines
    .map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }))
    .filter((line) => line.text !== '')
    .map((line) => `[Speaker ${line.speaker}]: ${line.text}`)
    .join('\n');
}
